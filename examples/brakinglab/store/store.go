// Package store is BrakingLab's database: users, tracks, cars, sessions
// with laps and telemetry, race events and the records a driver and their
// coach write (preparations, readiness assessments, notepads, track notes,
// coaching reports, strategies).
//
// One Store serves both engines BrakingLab runs on: an SQLite file (the
// default) or a PostgreSQL server (a postgres:// URL), which replicas of
// the server share. Each engine has its own migration set
// (migrations/sqlite, migrations/postgres) producing the same tables, so
// every query is written once.
//
// Every method that reads or writes a user's records takes the user's ID
// and only ever touches that user's rows: another user's ID behaves exactly
// like a missing one (ErrNotFound). Every mutation runs in a transaction.
// Records that can be deleted are soft-deleted (deleted_at) and can be
// restored.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb"
	"github.com/brakinglab/codemode-go/examples/brakinglab/tracks"
)

// Errors returned by Store methods.
var (
	// ErrNotFound means the record does not exist, is deleted, or belongs
	// to another user.
	ErrNotFound = errors.New("not found")
	// ErrInvalidCredentials means the username or password is wrong.
	ErrInvalidCredentials = errors.New("invalid username or password")
	// ErrExists means a unique value (such as a username) is taken.
	ErrExists = errors.New("already exists")
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Store is an open BrakingLab database. It is safe for concurrent use.
type Store struct {
	db     *sql.DB
	engine sqldb.Engine
	// cur is set on the Store that InTx hands out: every method then runs
	// inside that one transaction.
	cur *sql.Tx
	// quotas overrides DefaultQuotas (SetQuota).
	quotas map[string]int
}

// Open opens the database named by dsn, applies pending migrations and
// loads the track reference data. dsn is either the path of an SQLite file
// (created if needed, with WAL and foreign keys on) or a PostgreSQL URL
// (postgres://user:password@host:port/dbname?sslmode=…) of an existing
// database, which any number of replicas may open at once. Close it when
// done.
func Open(ctx context.Context, dsn string) (*Store, error) {
	db, engine, err := sqldb.Open(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	s := &Store{db: db, engine: engine}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.syncTracks(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// DB returns the underlying database, for packages that keep their own
// tables in the same database (such as the development authorization
// server). On PostgreSQL its queries may use ? placeholders too.
func (s *Store) DB() *sql.DB { return s.db }

// Engine reports which database engine the store runs on.
func (s *Store) Engine() sqldb.Engine { return s.engine }

// Close closes the database. Closing a Store handed out by InTx does nothing.
func (s *Store) Close() error {
	if s.cur != nil {
		return nil
	}
	return s.db.Close()
}

// migrate applies the engine's migrations/<engine>/NNNN_*.sql in order,
// each in its own transaction, recording applied versions in
// schema_migrations. On PostgreSQL every step holds an advisory lock, so
// replicas starting together apply each migration once.
func (s *Store) migrate(ctx context.Context) error {
	const lock = "brakinglab store migrations"
	if err := sqldb.LockedTx(ctx, s.db, lock, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`)
		return err
	}); err != nil {
		return fmt.Errorf("store: migrations table: %w", err)
	}
	dir := "migrations/" + string(s.engine) + "/"
	names, err := fs.Glob(migrations, dir+"*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		version := strings.TrimSuffix(strings.TrimPrefix(name, dir), ".sql")
		err := sqldb.LockedTx(ctx, s.db, lock, func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, version).Scan(&n); err != nil || n > 0 {
				return err
			}
			body, err := migrations.ReadFile(name)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, version, ts(time.Now()))
			return err
		})
		if err != nil {
			return fmt.Errorf("store: migration %s: %w", version, err)
		}
	}
	return nil
}

// syncTracks makes the tracks tables match the tracks package.
func (s *Store) syncTracks(ctx context.Context) error {
	return sqldb.LockedTx(ctx, s.db, "brakinglab store migrations", func(tx *sql.Tx) error {
		for _, t := range tracks.All() {
			if _, err := tx.ExecContext(ctx, `INSERT INTO tracks (id, name, country, length_m, sector1_end_m, sector2_end_m) VALUES (?, ?, ?, ?, ?, ?)
				ON CONFLICT (id) DO UPDATE SET name = excluded.name, country = excluded.country, length_m = excluded.length_m,
				sector1_end_m = excluded.sector1_end_m, sector2_end_m = excluded.sector2_end_m`,
				t.ID, t.Name, t.Country, t.LengthM, t.SectorEndsM[0], t.SectorEndsM[1]); err != nil {
				return fmt.Errorf("store: track %s: %w", t.ID, err)
			}
			for _, c := range t.Corners {
				if _, err := tx.ExecContext(ctx, `INSERT INTO track_corners (track_id, idx, name, apex_m, direction) VALUES (?, ?, ?, ?, ?)
					ON CONFLICT (track_id, idx) DO UPDATE SET name = excluded.name, apex_m = excluded.apex_m, direction = excluded.direction`,
					t.ID, c.Index, c.Name, c.ApexM, string(c.Direction)); err != nil {
					return fmt.Errorf("store: corner %s/%d: %w", t.ID, c.Index, err)
				}
			}
		}
		return nil
	})
}

// InTx runs fn with a Store whose every method works inside one
// transaction, committed if fn returns nil and rolled back otherwise. Use it
// for batches that must be all or nothing, such as the demo data.
func (s *Store) InTx(ctx context.Context, fn func(*Store) error) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		return fn(&Store{db: s.db, cur: tx, quotas: s.quotas})
	})
}

// conn is what reads go through: the current transaction, if any.
func (s *Store) conn() querier {
	if s.cur != nil {
		return s.cur
	}
	return s.db
}

// tx runs fn in a transaction, committing if it returns nil. Inside InTx it
// joins the running transaction.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	if s.cur != nil {
		return fn(s.cur)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// NewID returns a random identifier with the given prefix, such as
// "ses_9f86d081884c7d65". IDs are opaque to clients.
func NewID(prefix string) string {
	var b [8]byte
	rand.Read(b[:])
	return prefix + "_" + hex.EncodeToString(b[:])
}

const timeLayout = "2006-01-02T15:04:05.000Z"

// ts formats t for storage.
func ts(t time.Time) string { return t.UTC().Format(timeLayout) }

// parseTS reads a stored time.
func parseTS(s string) time.Time {
	t, _ := time.Parse(timeLayout, s)
	return t
}

func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// Count returns the number of rows in a table, for tests and diagnostics.
// Only the package's own tables are accepted.
func (s *Store) Count(ctx context.Context, table string) (int, error) {
	if _, ok := tables[table]; !ok {
		return 0, fmt.Errorf("store: unknown table %q", table)
	}
	var n int
	err := s.conn().QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n)
	return n, err
}

// Tables lists the tables Count accepts.
func Tables() []string {
	out := make([]string, 0, len(tables))
	for t := range tables {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

var tables = map[string]struct{}{
	"users": {}, "tracks": {}, "track_corners": {}, "cars": {}, "sessions": {}, "laps": {}, "lap_telemetry": {},
	"race_events": {}, "race_preparations": {}, "readiness_assessments": {}, "notepads": {}, "track_notes": {},
	"coaching_reports": {}, "race_strategies": {},
}
