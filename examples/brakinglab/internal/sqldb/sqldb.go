// Package sqldb opens BrakingLab's database on either engine it runs on:
// an SQLite file (modernc.org/sqlite, the default) or a PostgreSQL server
// (pgx). The store and the development authorization server write their
// queries once, with ? placeholders; on PostgreSQL the connection rewrites
// them to $1, $2, … so the same SQL text runs on both engines. What the
// engines do differently lives in each package's per-engine migrations and
// in the few queries that check Engine.
package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"
	"weak"

	"github.com/XSAM/otelsql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
	"modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// Engine names a database engine.
type Engine string

// The engines BrakingLab runs on.
const (
	SQLite   Engine = "sqlite"
	Postgres Engine = "postgres"
)

// IsURL reports whether dsn names a PostgreSQL server (postgres:// or
// postgresql://) rather than an SQLite file.
func IsURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open opens an SQLite file (WAL, foreign keys, a 10 s busy timeout,
// writers taking the lock up front) or, for a postgres:// URL, a pool of
// connections to that server, and checks that it answers.
func Open(ctx context.Context, dsn string) (*sql.DB, Engine, error) {
	if dsn == "" {
		return nil, "", errors.New("empty database path")
	}
	if IsURL(dsn) {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			return nil, "", fmt.Errorf("database URL: %w", err)
		}
		db := otelsql.OpenDB(connector{stdlib.GetConnector(*cfg)}, traced(semconv.DBSystemNamePostgreSQL)...)
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			return nil, "", fmt.Errorf("connect to %s: %w", Redact(dsn), err)
		}
		rememberPostgres(db)
		return db, Postgres, nil
	}
	q := url.Values{}
	// Per connection: none of these takes a lock. WAL is set once below:
	// it is stored in the file, and switching to it needs the database to
	// itself, which SQLite refuses at once (SQLITE_BUSY, busy timeout or
	// not) while another connection does the same, as replicas or a
	// second Open starting together on a new file do.
	for _, p := range []string{"busy_timeout(10000)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate") // writers take the lock up front: no upgrade deadlocks
	db, err := otelsql.Open("sqlite", "file:"+dsn+"?"+q.Encode(), traced(semconv.DBSystemNameSQLite)...)
	if err != nil {
		return nil, "", fmt.Errorf("open %s: %w", dsn, err)
	}
	if err := useWAL(ctx, db); err != nil {
		db.Close()
		return nil, "", fmt.Errorf("open %s: %w", dsn, err)
	}
	return db, SQLite, nil
}

// traced configures the SQL spans: one per query and statement (with its
// text, which holds placeholders, never arguments), none for the
// connection pool's own bookkeeping, and only inside a trace a caller
// started, so start-up migrations do not each begin a trace.
func traced(system attribute.KeyValue) []otelsql.Option {
	return []otelsql.Option{
		otelsql.WithAttributes(system),
		otelsql.WithSpanOptions(otelsql.SpanOptions{
			SpanFilter: func(ctx context.Context, _ otelsql.Method, _ string, _ []driver.NamedValue) bool {
				return trace.SpanContextFromContext(ctx).IsValid()
			},
			OmitConnResetSession: true,
			OmitConnPrepare:      true,
			OmitRows:             true,
			OmitConnectorConnect: true,
		}),
	}
}

// walWait bounds how long Open retries switching a busy database to WAL,
// like the busy timeout of every other statement.
const walWait = 10 * time.Second

// useWAL puts the database in WAL mode, retrying while another connection
// holds it.
func useWAL(ctx context.Context, db *sql.DB) error {
	ctx, cancel := context.WithTimeout(ctx, walWait)
	defer cancel()
	for {
		var mode string
		err := db.QueryRowContext(ctx, `PRAGMA journal_mode=WAL`).Scan(&mode)
		if err == nil {
			if mode != "wal" {
				return fmt.Errorf("journal mode is %q, WAL could not be set", mode)
			}
			return nil
		}
		if !isBusy(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("switching to WAL: %w", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// isBusy reports an SQLite SQLITE_BUSY error, whatever its extended code.
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// Redact returns dsn with any password replaced, for logs and errors.
func Redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || !IsURL(dsn) {
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// postgresDBs holds the databases Open opened on PostgreSQL, which the
// tracing wrapper (otelsql) hides the driver of, so db.Driver() cannot
// tell. Weak keys: a database closed and dropped leaves the set, so a
// process that opens many (tests, a host reconnecting) does not keep them.
var postgresDBs sync.Map // weak.Pointer[sql.DB] → true

// rememberPostgres adds db to postgresDBs until it is garbage.
func rememberPostgres(db *sql.DB) {
	key := weak.Make(db)
	postgresDBs.Store(key, true)
	runtime.AddCleanup(db, func(key weak.Pointer[sql.DB]) { postgresDBs.Delete(key) }, key)
}

// EngineOf tells which engine db was opened on: Postgres for a database
// from Open with a URL (or one on this package's PostgreSQL driver),
// SQLite otherwise.
func EngineOf(db *sql.DB) Engine {
	if _, ok := postgresDBs.Load(weak.Make(db)); ok {
		return Postgres
	}
	if _, ok := db.Driver().(pgDriver); ok {
		return Postgres
	}
	return SQLite
}

// LockedTx runs fn in a transaction. On PostgreSQL the transaction first
// takes the advisory lock named key, so replicas starting together on one
// server run their migrations one after the other; SQLite's write lock
// already does that.
func LockedTx(ctx context.Context, db *sql.DB, key string, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if EngineOf(db) == Postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext(?))`, key); err != nil {
			return err
		}
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// Rebind rewrites ? placeholders to PostgreSQL's $1, $2, …, leaving
// string literals, quoted identifiers and comments alone.
func Rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	n := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(q) && q[j] != c {
				j++
			}
			b.WriteString(q[i:min(j+1, len(q))])
			i = j
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			b.WriteString(q[i : i+j])
			i += j - 1
		case c == '?':
			n++
			fmt.Fprintf(&b, "$%d", n)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// connector hands out connections that rebind placeholders.
type connector struct{ driver.Connector }

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{cn.(*stdlib.Conn)}, nil
}

func (c connector) Driver() driver.Driver { return pgDriver{c.Connector.Driver()} }

// pgDriver marks databases opened on PostgreSQL (EngineOf).
type pgDriver struct{ driver.Driver }

// conn is a pgx connection whose queries are rebound first. It forwards
// every optional interface database/sql uses, so nothing falls back to a
// slower path.
type conn struct{ *stdlib.Conn }

func (c *conn) Prepare(q string) (driver.Stmt, error) { return c.Conn.Prepare(Rebind(q)) }

func (c *conn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, Rebind(q))
}

func (c *conn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, Rebind(q), args)
}

func (c *conn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, Rebind(q), args)
}

var (
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
)
