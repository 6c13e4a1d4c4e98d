package pgstate_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/codemodetest"
	"github.com/brakinglab/codemode-go/codemode/pgstate"
	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/internal/pgtest"
	"github.com/brakinglab/codemode-go/sandbox"
	"github.com/brakinglab/codemode-go/saved"
	"github.com/brakinglab/codemode-go/saved/savedtest"
)

// newState returns a State on a database of its own.
func newState(t *testing.T, db string) *pgstate.State {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	st, err := pgstate.New(context.Background(), pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func TestSavedFunctionsStore(t *testing.T) {
	savedtest.Store(t, func(t *testing.T) state.SavedFunctions {
		return newState(t, pgtest.NewDatabase(t)).SavedFunctions()
	})
}

// Two replicas on one database: a change committed through one is
// reported by the other's listener, once; a change rolled back is not.
func TestSavedChangesAcrossReplicas(t *testing.T) {
	savedtest.Changes(t, func(t *testing.T) (a, b state.SavedFunctions) {
		db := pgtest.NewDatabase(t)
		return newState(t, db).SavedFunctions(), newState(t, db).SavedFunctions()
	})
}

type lapsIn struct {
	Track string `json:"track"`
}

// garage is a catalog of one read-only function, garage.getLaps, whose
// answer names the caller: "alice@Spa".
func garage() *catalog.Catalog {
	cat, _ := catalog.New("garage", nil)
	catalog.MustAdd(cat, catalog.Func[lapsIn, []string]{
		Name: "getLaps", Description: "Lists laps.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, in lapsIn) ([]string, error) {
			p, _ := catalog.PrincipalFrom(ctx)
			return []string{p.Subject + "@" + in.Track}, nil
		},
	})
	return cat
}

// A function saved through one replica is called through another, as
// the caller.
func TestSavedFunctionsAcrossReplicas(t *testing.T) {
	db := pgtest.NewDatabase(t)
	cat := garage()
	replica := func() *codemodetest.Harness {
		lib := saved.New(&saved.Options{Store: newState(t, db).SavedFunctions()})
		return codemodetest.New(t, cat, &codemodetest.Options{Server: &codemode.Options{Saved: lib, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}}})
	}
	a, b := replica(), replica()
	res := a.Run(t, `return await codemode.save({ name: "laps", description: "Laps of a track.", code: "return garage.getLaps({ track: input.track })", input: { type: "object", properties: { track: { type: "string" } }, required: ["track"] } })`)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	res = b.Run(t, `return await saved.laps({ track: "Spa" })`)
	if got := codemodetest.Value[[]string](t, res); len(got) != 1 || got[0] != "test@Spa" {
		t.Fatalf("replica b: %v", got)
	}
	res = b.Run(t, `return (await codemode.savedHistory("laps")).map(f => f.version + " " + f.tier)`)
	if got := codemodetest.Value[[]string](t, res); strings.Join(got, ",") != "1 READ-ONLY" {
		t.Fatalf("history on b: %v", got)
	}
}

// A publication waits for the owner's save lock, as a save does: a save
// reads whether its name is published to choose whom to notify, so a
// publication slipped between that read and the save's commit would leave
// other users' sessions unaware of the new version.
func TestPublishTakesTheOwnersSaveLock(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDatabase(t)
	fns := newState(t, db).SavedFunctions()
	fn := state.SavedFunction{Owner: "ann", Name: "f", Description: "d", Code: "return 1", Input: []byte(`{"type":"object"}`), Tier: "READ-ONLY", Created: time.Now()}
	if _, err := fns.Save(ctx, fn, 0); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The lock a save of ann's holds (pgstate's savedLock, "savd").
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1, hashtext($2))", int32(0x73617664), "ann"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := fns.Publish(ctx, "ann", "f", true); done <- err }()
	select {
	case err := <-done:
		_ = tx.Rollback(ctx)
		t.Fatalf("Publish ended (%v) while a save held ann's lock", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
