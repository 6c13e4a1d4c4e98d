package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb"
)

// SavedFunctions returns the saved functions kept in this database, a
// state.SavedFunctions for saved.Options.Store: on SQLite for one
// process, on PostgreSQL for every replica. Owners are principals'
// subjects (user IDs). A save, publication or removal holds the owner's
// lock (an advisory lock on PostgreSQL; SQLite has one writer), so
// versions are consecutive, the per-owner limit holds and a save knows
// whether its name is published. Each runs in a transaction of its own,
// also on a Store from InTx.
//
// It also implements state.SavedChanges, so that the sessions of every
// server using the database hear of a change (see WatchSaved).
func (s *Store) SavedFunctions() *SavedFunctions {
	return &SavedFunctions{s: s, file: &fileKey{}}
}

// SavedFunctions is the Store's state.SavedFunctions and
// state.SavedChanges.
type SavedFunctions struct {
	s *Store
	// shared reports the changes of every replica (WithChanges).
	shared state.SavedChanges
	// file names the SQLite file for the in-process reports (key).
	file *fileKey
}

var (
	_ state.SavedFunctions = (*SavedFunctions)(nil)
	_ state.SavedChanges   = (*SavedFunctions)(nil)
)

// savedLock names the lock a change of owner's functions holds.
func savedLock(owner string) string { return "saved functions of " + owner }

// Save implements state.SavedFunctions.
func (f *SavedFunctions) Save(ctx context.Context, fn state.SavedFunction, maxNames int) (int, error) {
	uses, _ := json.Marshal(nonNilStrings(fn.Uses))
	var (
		version   int
		published int
	)
	err := sqldb.LockedTx(ctx, f.s.db, savedLock(fn.Owner), func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT published FROM saved_function_names WHERE owner = ? AND name = ?`, fn.Owner, fn.Name).Scan(&published)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if errors.Is(err, sql.ErrNoRows) {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM saved_function_names WHERE owner = ?`, fn.Owner).Scan(&n); err != nil {
				return err
			}
			if maxNames > 0 && n >= maxNames {
				return state.ErrSavedLimit
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO saved_function_names (owner, name) VALUES (?, ?)`, fn.Owner, fn.Name); err != nil {
				return err
			}
		}
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) + 1 FROM saved_functions WHERE owner = ? AND name = ?`, fn.Owner, fn.Name).Scan(&version); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO saved_functions (owner, name, version, description, code, input, output, tier, uses, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			fn.Owner, fn.Name, version, fn.Description, fn.Code, string(fn.Input), string(fn.Output), fn.Tier, string(uses), fn.Created.UTC().Format(time.RFC3339Nano)); err != nil {
			return err
		}
		return f.notify(ctx, tx, fn.Owner, published != 0)
	})
	if errors.Is(err, state.ErrSavedLimit) {
		return 0, err
	}
	if err != nil {
		return 0, fmt.Errorf("store: saving a function: %w", err)
	}
	f.committed(fn.Owner, published != 0)
	return version, nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

const savedColumns = `SELECT s.owner, s.name, s.version, n.published, s.description, s.code, s.input, s.output, s.tier, s.uses, s.created_at
	FROM saved_functions s JOIN saved_function_names n ON n.owner = s.owner AND n.name = s.name`

// query returns the rows of a query selecting savedColumns.
func (f *SavedFunctions) query(ctx context.Context, q string, args ...any) ([]state.SavedFunction, error) {
	rows, err := f.s.conn().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: reading saved functions: %w", err)
	}
	defer rows.Close()
	var out []state.SavedFunction
	for rows.Next() {
		var (
			fn                  state.SavedFunction
			pub                 int
			input, output, uses string
			created             string
		)
		if err := rows.Scan(&fn.Owner, &fn.Name, &fn.Version, &pub, &fn.Description, &fn.Code, &input, &output, &fn.Tier, &uses, &created); err != nil {
			return nil, fmt.Errorf("store: reading saved functions: %w", err)
		}
		fn.Published = pub != 0
		fn.Input = []byte(input)
		if output != "" {
			fn.Output = []byte(output)
		}
		if err := json.Unmarshal([]byte(uses), &fn.Uses); err != nil {
			return nil, fmt.Errorf("store: reading saved functions: uses: %w", err)
		}
		fn.Created, _ = time.Parse(time.RFC3339Nano, created)
		out = append(out, fn)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: reading saved functions: %w", err)
	}
	return out, nil
}

func first(fns []state.SavedFunction, err error) (*state.SavedFunction, error) {
	if err != nil || len(fns) == 0 {
		return nil, err
	}
	return &fns[0], nil
}

// Get implements state.SavedFunctions.
func (f *SavedFunctions) Get(ctx context.Context, owner, name string, version int) (*state.SavedFunction, error) {
	return first(f.query(ctx, savedColumns+` WHERE s.owner = ? AND s.name = ? AND (? = 0 OR s.version = ?) ORDER BY s.version DESC LIMIT 1`, owner, name, version, version))
}

// Published implements state.SavedFunctions.
func (f *SavedFunctions) Published(ctx context.Context, name string, version int) (*state.SavedFunction, error) {
	return first(f.query(ctx, savedColumns+` WHERE n.published <> 0 AND s.name = ? AND (? = 0 OR s.version = ?) ORDER BY s.owner, s.version DESC LIMIT 1`, name, version, version))
}

// List implements state.SavedFunctions.
func (f *SavedFunctions) List(ctx context.Context, owner string) ([]state.SavedFunction, error) {
	fns, err := f.query(ctx, savedColumns+` WHERE (s.owner = ? OR n.published <> 0)
		AND s.version = (SELECT MAX(version) FROM saved_functions l WHERE l.owner = s.owner AND l.name = s.name)`, owner)
	slices.SortFunc(fns, func(a, b state.SavedFunction) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Owner, b.Owner)
	})
	return fns, err
}

// History implements state.SavedFunctions.
func (f *SavedFunctions) History(ctx context.Context, owner, name string) ([]state.SavedFunction, error) {
	return f.query(ctx, savedColumns+` WHERE s.owner = ? AND s.name = ? ORDER BY s.version`, owner, name)
}

// Remove implements state.SavedFunctions; its versions go with it.
func (f *SavedFunctions) Remove(ctx context.Context, owner, name string) (bool, error) {
	var published int
	removed := false
	err := sqldb.LockedTx(ctx, f.s.db, savedLock(owner), func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT published FROM saved_function_names WHERE owner = ? AND name = ?`, owner, name).Scan(&published)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM saved_functions WHERE owner = ? AND name = ?`, owner, name); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM saved_function_names WHERE owner = ? AND name = ?`, owner, name); err != nil {
			return err
		}
		removed = true
		return f.notify(ctx, tx, owner, published != 0)
	})
	if err != nil {
		return false, fmt.Errorf("store: removing a saved function: %w", err)
	}
	if removed {
		f.committed(owner, published != 0)
	}
	return removed, nil
}

// Publish implements state.SavedFunctions.
func (f *SavedFunctions) Publish(ctx context.Context, owner, name string, published bool) (bool, error) {
	p := 0
	if published {
		p = 1
	}
	found := false
	err := sqldb.LockedTx(ctx, f.s.db, savedLock(owner), func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE saved_function_names SET published = ? WHERE owner = ? AND name = ?`, p, owner, name)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil || n == 0 {
			return err
		}
		found = true
		return f.notify(ctx, tx, owner, true)
	})
	if err != nil {
		return false, fmt.Errorf("store: publishing a saved function: %w", err)
	}
	if found {
		f.committed(owner, true)
	}
	return found, nil
}
