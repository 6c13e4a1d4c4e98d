package store

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/brakinglab/codemode-go/codemode/pgstate"
	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb/sqldbtest"
	"github.com/brakinglab/codemode-go/saved/savedtest"
)

// The store keeps saved functions as the contract says, on SQLite and (in
// TestOnPostgreSQL's pass) on PostgreSQL.
func TestSavedFunctions(t *testing.T) {
	savedtest.Store(t, func(t *testing.T) state.SavedFunctions {
		s, _ := open(t)
		return s.SavedFunctions()
	})
}

// reopen opens a second Store on dsn, as another server (SQLite, in this
// process) or replica (PostgreSQL) would.
func reopen(t *testing.T, dsn string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// replicaChanges is what a replica on PostgreSQL watches: the saved
// functions of a pgstate.State of its own on the store's database.
func replicaChanges(t *testing.T, dsn string) state.SavedChanges {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	st, err := pgstate.New(context.Background(), pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.SavedFunctions()
}

// Changes committed through one Store are reported to the watchers of
// another on the same database, once, and refused ones are not: on
// SQLite two Stores of one file in this process, on PostgreSQL two
// replicas each watching through its own pgstate.State.
func TestSavedChanges(t *testing.T) {
	savedtest.Changes(t, func(t *testing.T) (a, b state.SavedFunctions) {
		s1, dsn := open(t)
		s2 := reopen(t, dsn)
		if sqldbtest.OnPostgres() {
			return s1.SavedFunctions().WithChanges(replicaChanges(t, dsn)), s2.SavedFunctions().WithChanges(replicaChanges(t, dsn))
		}
		return s1.SavedFunctions(), s2.SavedFunctions()
	})
}

// On SQLite, a watcher hears of its own file's changes only; the
// changes of a Store given no pgstate on PostgreSQL are its own.
func TestSavedChangesStayWithTheirDatabase(t *testing.T) {
	ctx := context.Background()
	s1, dsn := open(t)
	other, _ := open(t)
	got := make(chan string, 8)
	stop := s1.SavedFunctions().WatchSaved(func(owner string, _ bool) { got <- owner })
	defer stop()
	rec := func(owner string) state.SavedFunction {
		return state.SavedFunction{Owner: owner, Name: "f", Description: "d", Code: "return 1",
			Input: []byte(`{"type":"object"}`), Tier: "READ-ONLY", Created: time.Now()}
	}
	if _, err := other.SavedFunctions().Save(ctx, rec("elsewhere"), 0); err != nil {
		t.Fatal(err)
	}
	var marker *Store = s1
	if !sqldbtest.OnPostgres() {
		marker = reopen(t, dsn) // another Store on the same file
	}
	if _, err := marker.SavedFunctions().Save(ctx, rec("here"), 0); err != nil {
		t.Fatal(err)
	}
	if owner := <-got; owner != "here" {
		t.Fatalf("first report for %q, want the change of this database (%q)", owner, "here")
	}
}
