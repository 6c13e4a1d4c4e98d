package functions_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/examples/brakinglab/demo"
	"github.com/brakinglab/codemode-go/examples/brakinglab/functions"
	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb/sqldbtest"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
)

// The tests share one seeded database (seeding takes a few seconds). Tests
// that write create their own records and run sequentially.
var (
	st            *store.Store
	cat           *catalog.Catalog
	demoU, rivalU store.User
	seedDay       = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "brakinglab-functions")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	dsn, drop, err := sqldbtest.NewDSN(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer drop()
	if st, err = store.Open(ctx, dsn); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	if _, err := demo.SeedStore(ctx, st, &demo.Options{Now: seedDay}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if cat, err = functions.New(st); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	demoU, _ = st.UserByUsername(ctx, "demo")
	rivalU, _ = st.UserByUsername(ctx, "rival")
	return m.Run()
}

// TestOnPostgreSQL runs every other test of the package again on a
// database seeded on PostgreSQL.
func TestOnPostgreSQL(t *testing.T) {
	sqldbtest.RunOnPostgres(t, sqldbtest.Server(t))
}

// as returns a context signed in as u with both scopes.
func as(u store.User) context.Context {
	return catalog.WithPrincipal(context.Background(), catalog.Principal{
		Subject: u.ID, ClientID: "test", Scopes: []string{functions.ScopeRead, functions.ScopeWrite},
	})
}

// call runs a function as u with args (marshalled unless already raw).
func call(u store.User, name string, args any) (json.RawMessage, error) {
	raw, ok := args.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	return cat.Call(as(u), name, raw)
}

// mustCall is call that fails the test on error and decodes into out.
func mustCall(t *testing.T, u store.User, name string, args any, out any) {
	t.Helper()
	res, err := call(u, name, args)
	if err != nil {
		b, _ := json.Marshal(err)
		t.Fatalf("%s: %v %s", name, err, b)
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			t.Fatalf("%s: decode %s: %v", name, res, err)
		}
	}
}

// code returns the model-visible code of a catalog error ("" if none).
func code(err error) string {
	var ce *catalog.Error
	if errors.As(err, &ce) {
		return ce.Code
	}
	var ve *catalog.ValidationError
	if errors.As(err, &ve) {
		return "validation"
	}
	return ""
}

// counts returns the row count of every table.
func counts(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range store.Tables() {
		n, err := st.Count(context.Background(), table)
		if err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

type obj = map[string]any
