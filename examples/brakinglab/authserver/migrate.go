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
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrationTable is distinct from the host store's so both can share one database.
const migrationTable = "authserver_migrations"

// migrate applies the embedded migrations that have not run yet, each in its
// own transaction, so a failure leaves the schema at the last good version.
func migrate(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+migrationTable+` (
		version    INTEGER PRIMARY KEY,
		applied_at INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("authserver: create migration table: %w", err)
	}
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
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
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("authserver: migration %d: %w", version, err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+migrationTable+` WHERE version = ?`, version).Scan(&n); err != nil {
		return fmt.Errorf("authserver: migration %d: %w", version, err)
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return fmt.Errorf("authserver: migration %d: %w", version, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+migrationTable+` (version, applied_at) VALUES (?, strftime('%s','now'))`, version); err != nil {
		return fmt.Errorf("authserver: migration %d: %w", version, err)
	}
	return tx.Commit()
}
