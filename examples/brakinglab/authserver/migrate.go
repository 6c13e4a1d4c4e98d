package authserver

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFS embed.FS

// migrationTable is distinct from the host store's so both can share one database.
const migrationTable = "authserver_migrations"

// migrationLock serializes migrations of replicas starting together on one
// PostgreSQL database.
const migrationLock = "brakinglab authserver migrations"

// migrate applies the embedded migrations of db's engine that have not run
// yet, each in its own transaction, so a failure leaves the schema at the
// last good version.
func migrate(ctx context.Context, db *sql.DB) error {
	if err := sqldb.LockedTx(ctx, db, migrationLock, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+migrationTable+` (
		version    INTEGER PRIMARY KEY,
		applied_at INTEGER NOT NULL
	)`)
		return err
	}); err != nil {
		return fmt.Errorf("authserver: create migration table: %w", err)
	}
	dir := "migrations/" + string(sqldb.EngineOf(db)) + "/"
	names, err := fs.Glob(migrationFS, dir+"*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		base := strings.TrimPrefix(name, dir)
		version, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("authserver: migration %s has no numeric prefix", base)
		}
		if err := applyMigration(ctx, db, version, name); err != nil {
			return err
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, version int, name string) error {
	body, err := migrationFS.ReadFile(name)
	if err != nil {
		return err
	}
	err = sqldb.LockedTx(ctx, db, migrationLock, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+migrationTable+` WHERE version = ?`, version).Scan(&n); err != nil || n > 0 {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO `+migrationTable+` (version, applied_at) VALUES (?, ?)`, version, time.Now().Unix())
		return err
	})
	if err != nil {
		return fmt.Errorf("authserver: migration %d: %w", version, err)
	}
	return nil
}
