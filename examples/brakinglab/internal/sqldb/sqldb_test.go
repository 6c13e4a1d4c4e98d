package sqldb_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb"
	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb/sqldbtest"
)

func ExampleRebind() {
	fmt.Println(sqldb.Rebind(`SELECT id FROM notes WHERE user_id = ? AND note <> '?' AND "a?" = ? -- why?
LIMIT ?`))
	// Output:
	// SELECT id FROM notes WHERE user_id = $1 AND note <> '?' AND "a?" = $2 -- why?
	// LIMIT $3
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"brakinglab.db": "brakinglab.db",
		"postgres://lab:secret@db.internal:5432/lab":       "postgres://lab:xxxxx@db.internal:5432/lab",
		"postgres://lab@db/lab?password=s&sslmode=require": "postgres://lab@db/lab?password=xxxxx&sslmode=require",
		"postgresql://db/lab":                              "postgresql://db/lab",
	} {
		if got := sqldb.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsURL(t *testing.T) {
	for in, want := range map[string]bool{"postgres://x/y": true, "postgresql://x": true, "lab.db": false, "/var/lab.db": false} {
		if sqldb.IsURL(in) != want {
			t.Errorf("IsURL(%q) = %v", in, !want)
		}
	}
}

// TestOpenNewFileTogether opens one new SQLite file from several pools at
// once, as replicas or a second Open starting together do, and writes
// through each: none may fail with "database is locked". Switching a new
// file to WAL needs it to itself, and SQLite refuses that at once while
// another connection does the same; with WAL set on every new connection
// a round in a few dozen failed here.
func TestOpenNewFileTogether(t *testing.T) {
	ctx := context.Background()
	for round := range 100 {
		path := filepath.Join(t.TempDir(), "lab.db")
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Go(func() {
				db, _, err := sqldb.Open(ctx, path)
				if err != nil {
					t.Errorf("round %d, pool %d: %v", round, i, err)
					return
				}
				defer db.Close()
				// A write transaction, as a migration is: BEGIN IMMEDIATE.
				err = sqldb.LockedTx(ctx, db, "test", func(tx *sql.Tx) error {
					_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS t (x INTEGER)`)
					return err
				})
				if err != nil {
					t.Errorf("round %d, pool %d: create: %v", round, i, err)
					return
				}
				var mode string
				if err := db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
					t.Errorf("round %d, pool %d: journal mode %q, %v", round, i, mode, err)
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
	}
}

// A PostgreSQL database is known as one while it is in use, and the
// process forgets it once it is closed and dropped: a process that opens
// many (tests, a host that reconnects) does not keep them all.
func TestEngineOfForgetsClosedDatabases(t *testing.T) {
	dsn := sqldbtest.DSNOn(t, sqldbtest.Server(t))
	before := sqldb.PostgresDBs()
	func() {
		db, engine, err := sqldb.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if engine != sqldb.Postgres || sqldb.EngineOf(db) != sqldb.Postgres {
			t.Fatalf("Open said %q, EngineOf %q", engine, sqldb.EngineOf(db))
		}
		if n := sqldb.PostgresDBs(); n != before+1 {
			t.Fatalf("%d databases known, want %d", n, before+1)
		}
	}()
	// Cleanups run after a collection finds the database unreachable, on
	// a goroutine of their own.
	for i := 0; sqldb.PostgresDBs() > before; i++ {
		if i == 100 {
			t.Fatalf("%d databases still known after closing, want %d", sqldb.PostgresDBs(), before)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	lite, _, err := sqldb.Open(context.Background(), filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	if sqldb.EngineOf(lite) != sqldb.SQLite {
		t.Fatalf("an SQLite file is %q", sqldb.EngineOf(lite))
	}
}
