package pgstate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/jackc/pgx/v5"
)

// The approvals kept in the database: spent request states and the
// approval page's pending approvals.

// SpentApprovals returns the shared replay cache that spends each approval
// once across replicas, a [state.SpentApprovals] for
// [approval.Options.Spent].
func (s *State) SpentApprovals() *SpentApprovals { return &SpentApprovals{s} }

// SpentApprovals keeps one row per approval used (table
// codemode_approvals) until the approval expires: the first replica to
// insert the row runs the execution, and stores its outcome for a client
// that retries the same request after a lost response. Unlike a limiter
// it has no in-process fallback: when the database cannot be reached an
// approval is refused rather than possibly spent twice.
type SpentApprovals struct{ s *State }

var _ state.SpentApprovals = (*SpentApprovals)(nil)

// Spend implements [state.SpentApprovals].
func (a *SpentApprovals) Spend(ctx context.Context, id, request string, expires time.Time) (bool, []byte, error) {
	// An expired row may still be there (the sweep runs every minute):
	// the insert takes it over.
	tag, err := a.s.pool.Exec(ctx, `INSERT INTO codemode_approvals (id, request, expires) VALUES ($1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET request = EXCLUDED.request, outcome = NULL, expires = EXCLUDED.expires
		WHERE codemode_approvals.expires < now()`, id, request, expires)
	if err != nil {
		return false, nil, fmt.Errorf("pgstate: spending an approval: %w", err)
	}
	if tag.RowsAffected() == 1 {
		return true, nil, nil
	}
	var outcome []byte
	err = a.s.pool.QueryRow(ctx, "SELECT outcome FROM codemode_approvals WHERE id = $1 AND request = $2", id, request).Scan(&outcome)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, fmt.Errorf("pgstate: reading a spent approval: %w", err)
	}
	return false, outcome, nil
}

// Settle implements [state.SpentApprovals].
func (a *SpentApprovals) Settle(ctx context.Context, id string, outcome []byte) error {
	// The request may be over: store with a context of its own.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := a.s.pool.Exec(dctx, "UPDATE codemode_approvals SET outcome = $2 WHERE id = $1", id, outcome); err != nil {
		return fmt.Errorf("pgstate: storing an approval's outcome: %w", err)
	}
	return nil
}

// PendingApprovals returns the shared store of the approval page, a
// [state.PendingApprovals] for [approval.Page.Store].
func (s *State) PendingApprovals() *PendingApprovals { return &PendingApprovals{s} }

// PendingApprovals keeps the approvals of the approval page, one row each
// (table codemode_pending) until PendingApprovalRetention after they
// expire, so that any replica serves the page and the re-run. Like
// SpentApprovals it has no in-process fallback.
type PendingApprovals struct{ s *State }

var _ state.PendingApprovals = (*PendingApprovals)(nil)

// pendingLock serialises Puts between replicas while they count the
// approvals waiting for an answer: without it two replicas could both
// see one place left and both take it. Puts are rare (a call that needs
// approval), so one lock for all costs nothing that matters.
const pendingLock = 0x636f64656d6f6470 // "codemodp"

// Put implements [state.PendingApprovals]: it refuses a new approval
// over Options.MaxPendingPerSubject or MaxPending with a
// *state.PendingLimitError.
func (a *PendingApprovals) Put(ctx context.Context, p state.PendingApproval) error {
	err := pgx.BeginFunc(ctx, a.s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(pendingLock)); err != nil {
			return err
		}
		var mine, all int
		if err := tx.QueryRow(ctx, `SELECT count(*) FILTER (WHERE subject = $1), count(*) FROM codemode_pending
			WHERE answer = '' AND expires > $2`, p.Subject, p.Created).Scan(&mine, &all); err != nil {
			return err
		}
		if mine >= a.s.maxPendingSubject {
			return &state.PendingLimitError{Subject: p.Subject, Limit: a.s.maxPendingSubject}
		}
		if all >= a.s.maxPending {
			return &state.PendingLimitError{Limit: a.s.maxPending}
		}
		_, err := tx.Exec(ctx, `INSERT INTO codemode_pending (id, match, subject, created, expires, answer, state)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, p.ID, p.Match, p.Subject, p.Created, p.Expires, p.Answer, p.State)
		return err
	})
	var full *state.PendingLimitError
	if err != nil && !errors.As(err, &full) {
		return fmt.Errorf("pgstate: storing a pending approval: %w", err)
	}
	return err
}

const pendingColumns = `id, match, subject, created, expires, answer, state`

func scanPending(row pgx.Row) (*state.PendingApproval, error) {
	var p state.PendingApproval
	err := row.Scan(&p.ID, &p.Match, &p.Subject, &p.Created, &p.Expires, &p.Answer, &p.State)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pgstate: reading a pending approval: %w", err)
	}
	return &p, nil
}

// Get implements [state.PendingApprovals].
func (a *PendingApprovals) Get(ctx context.Context, id string) (*state.PendingApproval, error) {
	return scanPending(a.s.pool.QueryRow(ctx, `SELECT `+pendingColumns+` FROM codemode_pending WHERE id = $1`, id))
}

// Latest implements [state.PendingApprovals].
func (a *PendingApprovals) Latest(ctx context.Context, match string) (*state.PendingApproval, error) {
	return scanPending(a.s.pool.QueryRow(ctx, `SELECT `+pendingColumns+` FROM codemode_pending WHERE match = $1 ORDER BY created DESC LIMIT 1`, match))
}

// Answer implements [state.PendingApprovals]: the first answer wins,
// whichever replica it reaches.
func (a *PendingApprovals) Answer(ctx context.Context, id, answer string, now time.Time) (bool, error) {
	tag, err := a.s.pool.Exec(ctx, `UPDATE codemode_pending SET answer = $2 WHERE id = $1 AND answer = '' AND expires > $3`, id, answer, now)
	if err != nil {
		return false, fmt.Errorf("pgstate: storing an approval's answer: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}
