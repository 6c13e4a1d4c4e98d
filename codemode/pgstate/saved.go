package pgstate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/jackc/pgx/v5"
)

// SavedFunctions returns the saved functions kept in the database, a
// [state.SavedFunctions] for saved.Options.Store: a function saved on one
// replica is called on any other.
func (s *State) SavedFunctions() *SavedFunctions { return &SavedFunctions{s} }

// SavedFunctions keeps one row per name (table codemode_saved_names,
// with its published mark) and one per version (codemode_saved). A save
// takes a transaction-scoped advisory lock on its owner, so two replicas
// saving at once get consecutive versions and the per-owner limit holds.
// It has no in-process fallback: without the database nothing is saved
// or read.
//
// Each save, publication and removal sends a NOTIFY on channel
// codemode_saved in its own transaction, so a change that is rolled back
// tells nobody; every replica's listener reports it to the watchers
// ([SavedFunctions.WatchSaved]), its own included. A host keeping saved
// functions in tables of its own sends the same notice ([SavedNotice]).
type SavedFunctions struct{ s *State }

var (
	_ state.SavedFunctions = (*SavedFunctions)(nil)
	_ state.SavedChanges   = (*SavedFunctions)(nil)
)

// WatchSaved implements [state.SavedChanges] across replicas: fn learns
// of the changes any replica commits to the database, this one's
// included, shortly after the commit, on the State's listener goroutine
// (so it must not block: cancellations wait behind it). After the
// listener lost its connection and has it back, fn is called with "" and
// true, since changes committed in between reached nobody here. Every
// SavedFunctions of one State shares its watchers.
func (f *SavedFunctions) WatchSaved(fn func(owner string, everyone bool)) (stop func()) {
	return f.s.savedWatch.Add(fn)
}

// The payload of a codemode_saved notification is "*" (the change
// concerns everyone) or "=" and the owner. An owner too long for a
// payload (PostgreSQL takes under 8,000 bytes) is sent as "*": every
// session re-reads, none is missed.
const (
	everyonePayload = "*"
	ownerPayload    = "="
	maxOwnerPayload = 4000
)

// SavedNotice returns the NOTIFY that tells every replica's State that
// owner's saved functions changed (everyone: the change concerns every
// principal, because the function is or was published). It is for a host
// that keeps saved functions in tables of its own, in the database the
// State's pool reaches: run
//
//	SELECT pg_notify($1, $2)
//
// with channel and payload inside the transaction that makes the change,
// after the change, so that the notice is delivered when the transaction
// commits and never when it rolls back; report only changes that were
// stored (not a save refused at the limit, nor the removal of a name
// there is none of). Every State on that database then reports it to
// the watchers of its SavedFunctions ([SavedFunctions.WatchSaved]),
// which the host's store can return as its own [state.SavedChanges]. The
// payload is the one this package's own store sends.
func SavedNotice(owner string, everyone bool) (channel, payload string) {
	if everyone || len(owner) > maxOwnerPayload {
		return savedChannel, everyonePayload
	}
	return savedChannel, ownerPayload + owner
}

// notifySaved sends the notification of a change of owner's functions
// within tx: it is delivered when tx commits, and never if it does not.
func notifySaved(ctx context.Context, tx pgx.Tx, owner string, everyone bool) error {
	ch, payload := SavedNotice(owner, everyone)
	_, err := tx.Exec(ctx, "SELECT pg_notify($1, $2)", ch, payload)
	return err
}

// savedChanged reports the change a codemode_saved notification names.
func (s *State) savedChanged(payload string) {
	if owner, ok := strings.CutPrefix(payload, ownerPayload); ok {
		s.reportSaved(owner, false)
		return
	}
	s.reportSaved("", true) // "*", or a payload this version does not know: everyone
}

// reportSaved calls the watchers.
func (s *State) reportSaved(owner string, everyone bool) {
	for _, fn := range s.savedWatch.All() {
		fn(owner, everyone)
	}
}

// savedLock is the advisory lock space of saves: one lock per owner.
const savedLock = 0x73617664 // "savd"

// lockOwner takes owner's save lock until tx ends. Save and Publish both
// take it: a save reads whether its name is published to choose whom to
// notify, and a publication between that read and the save's commit would
// leave other users' sessions unaware of the new version.
func lockOwner(ctx context.Context, tx pgx.Tx, owner string) error {
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1, hashtext($2))", int32(savedLock), owner)
	return err
}

// Save implements [state.SavedFunctions].
func (f *SavedFunctions) Save(ctx context.Context, fn state.SavedFunction, maxNames int) (int, error) {
	var version int
	err := pgx.BeginFunc(ctx, f.s.pool, func(tx pgx.Tx) error {
		if err := lockOwner(ctx, tx, fn.Owner); err != nil {
			return err
		}
		var published bool
		err := tx.QueryRow(ctx, "SELECT published FROM codemode_saved_names WHERE owner = $1 AND name = $2", fn.Owner, fn.Name).Scan(&published)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if errors.Is(err, pgx.ErrNoRows) {
			var n int
			if err := tx.QueryRow(ctx, "SELECT count(*) FROM codemode_saved_names WHERE owner = $1", fn.Owner).Scan(&n); err != nil {
				return err
			}
			if maxNames > 0 && n >= maxNames {
				return state.ErrSavedLimit
			}
			if _, err := tx.Exec(ctx, "INSERT INTO codemode_saved_names (owner, name) VALUES ($1, $2)", fn.Owner, fn.Name); err != nil {
				return err
			}
		}
		if err := tx.QueryRow(ctx, "SELECT COALESCE(max(version), 0) + 1 FROM codemode_saved WHERE owner = $1 AND name = $2", fn.Owner, fn.Name).Scan(&version); err != nil {
			return err
		}
		var output []byte
		if len(fn.Output) > 0 {
			output = fn.Output
		}
		uses := fn.Uses
		if uses == nil {
			uses = []string{}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO codemode_saved (owner, name, version, description, code, input, output, tier, uses, created)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			fn.Owner, fn.Name, version, fn.Description, fn.Code, fn.Input, output, fn.Tier, uses, fn.Created); err != nil {
			return err
		}
		return notifySaved(ctx, tx, fn.Owner, published)
	})
	if errors.Is(err, state.ErrSavedLimit) {
		return 0, err
	}
	if err != nil {
		return 0, fmt.Errorf("pgstate: saving a function: %w", err)
	}
	return version, nil
}

const savedColumns = `s.owner, s.name, s.version, n.published, s.description, s.code, s.input, s.output, s.tier, s.uses, s.created
	FROM codemode_saved s JOIN codemode_saved_names n ON n.owner = s.owner AND n.name = s.name`

// scanSaved reads the rows of a query selecting savedColumns.
func scanSaved(rows pgx.Rows) ([]state.SavedFunction, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (state.SavedFunction, error) {
		var fn state.SavedFunction
		err := row.Scan(&fn.Owner, &fn.Name, &fn.Version, &fn.Published, &fn.Description, &fn.Code, &fn.Input, &fn.Output, &fn.Tier, &fn.Uses, &fn.Created)
		return fn, err
	})
}

// one returns the only row of a query selecting savedColumns, or nil.
func (f *SavedFunctions) one(ctx context.Context, what, sql string, args ...any) (*state.SavedFunction, error) {
	rows, err := f.s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("pgstate: reading %s: %w", what, err)
	}
	fns, err := scanSaved(rows)
	if err != nil {
		return nil, fmt.Errorf("pgstate: reading %s: %w", what, err)
	}
	if len(fns) == 0 {
		return nil, nil
	}
	return &fns[0], nil
}

// Get implements [state.SavedFunctions].
func (f *SavedFunctions) Get(ctx context.Context, owner, name string, version int) (*state.SavedFunction, error) {
	return f.one(ctx, "a saved function", "SELECT "+savedColumns+
		" WHERE s.owner = $1 AND s.name = $2 AND ($3 = 0 OR s.version = $3) ORDER BY s.version DESC LIMIT 1", owner, name, version)
}

// Published implements [state.SavedFunctions].
func (f *SavedFunctions) Published(ctx context.Context, name string, version int) (*state.SavedFunction, error) {
	return f.one(ctx, "a published function", "SELECT "+savedColumns+
		" WHERE n.published AND s.name = $1 AND ($2 = 0 OR s.version = $2) ORDER BY s.version DESC LIMIT 1", name, version)
}

// List implements [state.SavedFunctions].
func (f *SavedFunctions) List(ctx context.Context, owner string) ([]state.SavedFunction, error) {
	rows, err := f.s.pool.Query(ctx, "SELECT DISTINCT ON (s.owner, s.name) "+savedColumns+
		" WHERE s.owner = $1 OR n.published ORDER BY s.owner, s.name, s.version DESC", owner)
	if err != nil {
		return nil, fmt.Errorf("pgstate: listing saved functions: %w", err)
	}
	fns, err := scanSaved(rows)
	if err != nil {
		return nil, fmt.Errorf("pgstate: listing saved functions: %w", err)
	}
	slices.SortFunc(fns, func(a, b state.SavedFunction) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Owner, b.Owner)
	})
	return fns, nil
}

// History implements [state.SavedFunctions].
func (f *SavedFunctions) History(ctx context.Context, owner, name string) ([]state.SavedFunction, error) {
	rows, err := f.s.pool.Query(ctx, "SELECT "+savedColumns+" WHERE s.owner = $1 AND s.name = $2 ORDER BY s.version", owner, name)
	if err != nil {
		return nil, fmt.Errorf("pgstate: reading a saved function's history: %w", err)
	}
	fns, err := scanSaved(rows)
	if err != nil {
		return nil, fmt.Errorf("pgstate: reading a saved function's history: %w", err)
	}
	return fns, nil
}

// Remove implements [state.SavedFunctions]; its versions go with it.
func (f *SavedFunctions) Remove(ctx context.Context, owner, name string) (bool, error) {
	removed := false
	err := pgx.BeginFunc(ctx, f.s.pool, func(tx pgx.Tx) error {
		var published bool
		err := tx.QueryRow(ctx, "DELETE FROM codemode_saved_names WHERE owner = $1 AND name = $2 RETURNING published", owner, name).Scan(&published)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		removed = true
		return notifySaved(ctx, tx, owner, published)
	})
	if err != nil {
		return false, fmt.Errorf("pgstate: removing a saved function: %w", err)
	}
	return removed, nil
}

// Publish implements [state.SavedFunctions]. Publishing a name another
// owner has published fails (a unique index holds one per name).
func (f *SavedFunctions) Publish(ctx context.Context, owner, name string, published bool) (bool, error) {
	found := false
	err := pgx.BeginFunc(ctx, f.s.pool, func(tx pgx.Tx) error {
		if err := lockOwner(ctx, tx, owner); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, "UPDATE codemode_saved_names SET published = $3 WHERE owner = $1 AND name = $2", owner, name, published)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		found = true
		return notifySaved(ctx, tx, owner, true)
	})
	if err != nil {
		return false, fmt.Errorf("pgstate: publishing a saved function: %w", err)
	}
	return found, nil
}
