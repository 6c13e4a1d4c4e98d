package pgstate_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/brakinglab/codemode-go/codemode/pgstate"
	"github.com/brakinglab/codemode-go/internal/pgtest"
)

// A host that keeps saved functions in a table of its own sends
// SavedNotice inside its transaction: a State on that database reports
// each committed change to its watchers, once, and a rolled-back one
// never.
func TestSavedNoticeFromAHostsTable(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDatabase(t)
	st := newState(t, db)
	type report struct {
		owner    string
		everyone bool
	}
	reports := make(chan report, 8)
	stop := st.SavedFunctions().WatchSaved(func(owner string, everyone bool) { reports <- report{owner, everyone} })
	defer stop()

	host, err := pgxpool.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	if _, err := host.Exec(ctx, `CREATE TABLE host_saved (owner text, name text)`); err != nil {
		t.Fatal(err)
	}
	change := func(owner string, everyone, commit bool) {
		t.Helper()
		err := pgx.BeginFunc(ctx, host, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO host_saved VALUES ($1, 'f')`, owner); err != nil {
				return err
			}
			channel, payload := pgstate.SavedNotice(owner, everyone)
			if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, channel, payload); err != nil {
				return err
			}
			if !commit {
				return errRollBack
			}
			return nil
		})
		if commit && err != nil || !commit && !errors.Is(err, errRollBack) {
			t.Fatal(err)
		}
	}
	change("ann", false, false) // rolled back: never reported
	change("bob", false, true)
	if r := <-reports; r != (report{"bob", false}) {
		t.Fatalf("first report %+v, want bob's (the rolled-back change reported?)", r)
	}
	change("ann", true, true)
	if r := <-reports; !r.everyone {
		t.Fatalf("a change for everyone reported as %+v", r)
	}
	long := strings.Repeat("x", 5000) // too long for a payload: everyone re-reads
	change(long, false, true)
	if r := <-reports; !r.everyone {
		t.Fatalf("a change of a very long owner reported as %+v", r)
	}
}

var errRollBack = errors.New("roll back")
