package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb"
)

// Kinds of append-only records, for SetQuota and QuotaError.
const (
	KindCoachingReport      = "coaching_reports"
	KindReadinessAssessment = "readiness_assessments"
	KindRaceStrategy        = "race_strategies"
)

// DefaultQuotas are the per-user record limits. A model-written script can
// call the write functions as often as the rate limit allows; without a
// bound one account could fill the disk. At the limit, deletable records
// (notepads, track notes, race events) make room by purging the oldest
// soft-deleted ones, and refuse with a QuotaError when none are deleted;
// append-only records (coaching reports, readiness assessments, strategies)
// keep the newest.
var DefaultQuotas = map[string]int{
	KindNotepad:             1000,
	KindTrackNote:           2000,
	KindRaceEvent:           1000,
	KindCoachingReport:      500,
	KindReadinessAssessment: 1000,
	KindRaceStrategy:        1000,
}

// ErrQuota is matched (errors.Is) by every QuotaError.
var ErrQuota = errors.New("record limit reached")

// QuotaError reports that a user has as many live records of Kind as
// allowed; deleting some makes room.
type QuotaError struct {
	Kind  string // a Kind constant, e.g. KindNotepad
	Limit int
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("%s: at most %d %s per user", ErrQuota, e.Limit, strings.ReplaceAll(e.Kind, "_", " "))
}

// Is makes errors.Is(err, ErrQuota) true.
func (e *QuotaError) Is(target error) bool { return target == ErrQuota }

// SetQuota changes this store's limit for one kind of record (tests use
// small ones). It is not safe to call while the store is in use.
func (s *Store) SetQuota(kind string, limit int) {
	if _, ok := DefaultQuotas[kind]; !ok {
		panic("store: no quota for " + kind)
	}
	if s.quotas == nil {
		s.quotas = map[string]int{}
	}
	s.quotas[kind] = limit
}

func (s *Store) quota(kind string) int {
	if n, ok := s.quotas[kind]; ok {
		return n
	}
	return DefaultQuotas[kind]
}

// makeRoom runs in the transaction that adds one row to table for userID
// and makes sure the user's rows (deleted ones included) stay within the
// quota afterwards.
func (s *Store) makeRoom(ctx context.Context, tx *sql.Tx, table, userID string) error {
	limit := s.quota(table)
	if s.engine == sqldb.Postgres {
		// SQLite's write lock serializes this count-then-insert; on
		// PostgreSQL the user's row does, across replicas too.
		if _, err := tx.ExecContext(ctx, `SELECT 1 FROM users WHERE id = ? FOR UPDATE`, userID); err != nil {
			return err
		}
	}
	var total int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM `+table+` WHERE user_id = ?`, userID).Scan(&total); err != nil {
		return err
	}
	excess := total - limit + 1
	if excess <= 0 {
		return nil
	}
	switch table {
	case KindCoachingReport, KindReadinessAssessment, KindRaceStrategy:
		_, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE rowid IN
			(SELECT rowid FROM `+table+` WHERE user_id = ? ORDER BY created_at, rowid LIMIT ?)`, userID, excess)
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT id FROM `+table+` WHERE user_id = ? AND deleted_at IS NOT NULL
		ORDER BY deleted_at, rowid LIMIT ?`, userID, excess)
	if err != nil {
		return err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(ids) < excess {
		return &QuotaError{Kind: table, Limit: limit}
	}
	for _, id := range ids {
		if table == KindRaceEvent {
			// What hangs off a purged event goes with it; a strategy stays, unlinked.
			for _, q := range []string{
				`DELETE FROM race_preparations WHERE race_event_id = ? AND user_id = ?`,
				`DELETE FROM readiness_assessments WHERE race_event_id = ? AND user_id = ?`,
				`UPDATE race_strategies SET race_event_id = NULL WHERE race_event_id = ? AND user_id = ?`,
			} {
				if _, err := tx.ExecContext(ctx, q, id, userID); err != nil {
					return err
				}
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE id = ? AND user_id = ?`, id, userID); err != nil {
			return err
		}
	}
	return nil
}
