package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/brakinglab/codemode-go/codemode/pgstate"
	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb"
)

// WithChanges returns a copy of f whose WatchSaved is w's. On
// PostgreSQL, w is the SavedFunctions of a pgstate.State whose pool
// reaches the same database: every replica's Save, Remove and Publish
// send pgstate's notice (pgstate.SavedNotice) inside their transaction,
// and that State's listener hears them all, this replica's included. A
// nil w keeps the in-process reports (see WatchSaved).
func (f *SavedFunctions) WithChanges(w state.SavedChanges) *SavedFunctions {
	c := *f
	c.shared = w
	return &c
}

// WatchSaved implements state.SavedChanges. With WithChanges it is that
// watcher's. Otherwise it reports, on the goroutine that made each
// change and right after its commit, the changes made through any
// SavedFunctions of this process on the same database: on SQLite every
// Store opened on the same file, so that several servers or Libraries in
// one process all hear; on PostgreSQL only this Store's (give
// WithChanges a pgstate.State's SavedFunctions to hear every replica).
// Several processes on one SQLite file do not hear each other's changes:
// that is not supported (use PostgreSQL for replicas).
func (f *SavedFunctions) WatchSaved(fn func(owner string, everyone bool)) (stop func()) {
	if f.shared != nil {
		return f.shared.WatchSaved(fn)
	}
	return local.watch(f.key(), fn)
}

// notify sends, on PostgreSQL, pgstate's notice of a change of owner's
// functions within tx: it reaches the replicas' listeners when tx
// commits, and never if it does not. SQLite has no such thing; committed
// reports the change in process.
func (f *SavedFunctions) notify(ctx context.Context, tx *sql.Tx, owner string, everyone bool) error {
	if sqldb.EngineOf(f.s.db) != sqldb.Postgres {
		return nil
	}
	channel, payload := pgstate.SavedNotice(owner, everyone)
	_, err := tx.ExecContext(ctx, `SELECT pg_notify(?, ?)`, channel, payload)
	return err
}

// committed reports a committed change to this process's watchers of the
// database.
func (f *SavedFunctions) committed(owner string, everyone bool) {
	local.report(f.key(), owner, everyone)
}

// key names the database for the in-process watchers: the SQLite file
// (as SQLite resolves it, so two Opens of one file share it), or this
// database handle on PostgreSQL or when SQLite cannot tell.
func (f *SavedFunctions) key() string {
	db := f.s.db
	if sqldb.EngineOf(db) == sqldb.Postgres {
		return fmt.Sprintf("db %p", db)
	}
	f.file.mu.Lock()
	defer f.file.mu.Unlock()
	if f.file.key != "" {
		return f.file.key
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var file string
	err := db.QueryRowContext(ctx, `SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&file)
	if err != nil || file == "" {
		return fmt.Sprintf("db %p", db)
	}
	f.file.key = "sqlite " + file
	return f.file.key
}

// fileKey caches key's answer for an SQLite file.
type fileKey struct {
	mu  sync.Mutex
	key string
}

// local holds the in-process watchers of saved-function changes, by
// database (key).
var local = &watchers{byDB: map[string]map[int]func(string, bool){}}

type watchers struct {
	mu   sync.Mutex
	next int
	byDB map[string]map[int]func(string, bool)
}

func (w *watchers) watch(db string, fn func(owner string, everyone bool)) (stop func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	id := w.next
	w.next++
	if w.byDB[db] == nil {
		w.byDB[db] = map[int]func(string, bool){}
	}
	w.byDB[db][id] = fn
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.byDB[db], id)
		if len(w.byDB[db]) == 0 {
			delete(w.byDB, db)
		}
	}
}

// report calls db's watchers, holding no lock.
func (w *watchers) report(db, owner string, everyone bool) {
	w.mu.Lock()
	fns := make([]func(string, bool), 0, len(w.byDB[db]))
	for _, fn := range w.byDB[db] {
		fns = append(fns, fn)
	}
	w.mu.Unlock()
	for _, fn := range fns {
		fn(owner, everyone)
	}
}
