package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"
)

// querier is what *sql.DB and *sql.Tx have in common for reads.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Race event statuses.
const (
	StatusScheduled = "scheduled"
	StatusCompleted = "completed"
	StatusCancelled = "cancelled"
)

// RaceEvent is a race on the user's calendar. A race is either timed
// (DurationMin) or run over a number of laps (Laps).
type RaceEvent struct {
	ID, Name, TrackID string
	// CarID is empty when the car is not chosen yet.
	CarID, Sim           string
	StartsAt             time.Time
	DurationMin, Laps    int
	Status, Notes        string
	CreatedAt, UpdatedAt time.Time
}

// RaceEventFilter narrows RaceEvents. Zero fields do not filter.
type RaceEventFilter struct {
	// From and To bound StartsAt (inclusive).
	From, To time.Time
	Status   string
}

// CreateRaceEvent adds a race event for the user; e.ID may be empty.
func (s *Store) CreateRaceEvent(ctx context.Context, userID string, e RaceEvent) (RaceEvent, error) {
	if e.ID == "" {
		e.ID = NewID("evt")
	}
	if e.Status == "" {
		e.Status = StatusScheduled
	}
	e.CreatedAt = now()
	e.UpdatedAt = e.CreatedAt
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.makeRoom(ctx, tx, KindRaceEvent, userID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO race_events (id, user_id, name, track_id, car_id, sim, starts_at, duration_min, laps, status, notes, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.ID, userID, e.Name, e.TrackID, nullable(e.CarID), e.Sim, ts(e.StartsAt), e.DurationMin, e.Laps, e.Status, e.Notes, ts(e.CreatedAt), ts(e.UpdatedAt))
		return err
	})
	return e, err
}

// UpdateRaceEvent loads the user's live event, lets change modify it and
// saves the result, all in one transaction. An error from change aborts
// without writing.
func (s *Store) UpdateRaceEvent(ctx context.Context, userID, id string, change func(*RaceEvent) error) (RaceEvent, error) {
	var e RaceEvent
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if e, err = raceEvent(ctx, tx, userID, id); err != nil {
			return err
		}
		if err := change(&e); err != nil {
			return err
		}
		e.UpdatedAt = now()
		_, err = tx.ExecContext(ctx, `UPDATE race_events SET name = ?, track_id = ?, car_id = ?, sim = ?, starts_at = ?, duration_min = ?, laps = ?,
			status = ?, notes = ?, updated_at = ? WHERE id = ? AND user_id = ?`,
			e.Name, e.TrackID, nullable(e.CarID), e.Sim, ts(e.StartsAt), e.DurationMin, e.Laps, e.Status, e.Notes, ts(e.UpdatedAt), id, userID)
		return err
	})
	return e, err
}

// DeleteRaceEvent soft-deletes the user's event.
func (s *Store) DeleteRaceEvent(ctx context.Context, userID, id string) error {
	return s.softDelete(ctx, "race_events", userID, id)
}

// RestoreRaceEvent undoes DeleteRaceEvent (a live event is left as it is).
func (s *Store) RestoreRaceEvent(ctx context.Context, userID, id string) (RaceEvent, error) {
	if err := s.restore(ctx, "race_events", userID, id); err != nil {
		return RaceEvent{}, err
	}
	return s.RaceEvent(ctx, userID, id)
}

// RaceEvent returns one of the user's live events.
func (s *Store) RaceEvent(ctx context.Context, userID, id string) (RaceEvent, error) {
	return raceEvent(ctx, s.conn(), userID, id)
}

const raceEventSelect = `SELECT id, name, track_id, coalesce(car_id, ''), sim, starts_at, duration_min, laps, status, notes, created_at, updated_at
	FROM race_events WHERE user_id = ? AND deleted_at IS NULL`

func raceEvent(ctx context.Context, q querier, userID, id string) (RaceEvent, error) {
	e, err := scanRaceEvent(q.QueryRowContext(ctx, raceEventSelect+` AND id = ?`, userID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return RaceEvent{}, ErrNotFound
	}
	return e, err
}

func scanRaceEvent(sc interface{ Scan(...any) error }) (RaceEvent, error) {
	var e RaceEvent
	var starts, created, updated string
	err := sc.Scan(&e.ID, &e.Name, &e.TrackID, &e.CarID, &e.Sim, &starts, &e.DurationMin, &e.Laps, &e.Status, &e.Notes, &created, &updated)
	e.StartsAt, e.CreatedAt, e.UpdatedAt = parseTS(starts), parseTS(created), parseTS(updated)
	return e, err
}

// RaceEvents lists the user's live events by start time.
func (s *Store) RaceEvents(ctx context.Context, userID string, f RaceEventFilter) ([]RaceEvent, error) {
	q, args := raceEventSelect, []any{userID}
	if !f.From.IsZero() {
		q += ` AND starts_at >= ?`
		args = append(args, ts(f.From))
	}
	if !f.To.IsZero() {
		q += ` AND starts_at <= ?`
		args = append(args, ts(f.To))
	}
	if f.Status != "" {
		q += ` AND status = ?`
		args = append(args, f.Status)
	}
	rows, err := s.conn().QueryContext(ctx, q+` ORDER BY starts_at, id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RaceEvent
	for rows.Next() {
		e, err := scanRaceEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Document is a JSON record attached to a user (a preparation, assessment,
// coaching report or strategy). Body is stored and returned as given.
type Document struct {
	ID string
	// ParentID is the race event (preparations, assessments, strategies)
	// or session (coaching reports) the document belongs to; it may be
	// empty for a strategy.
	ParentID string
	// TrackID is set for strategies only.
	TrackID              string
	Body                 json.RawMessage
	CreatedAt, UpdatedAt time.Time
}

// SaveRacePreparation creates or replaces the preparation for one of the
// user's live events.
func (s *Store) SaveRacePreparation(ctx context.Context, userID, eventID string, body json.RawMessage) (Document, error) {
	d := Document{ParentID: eventID, Body: body}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := raceEvent(ctx, tx, userID, eventID); err != nil {
			return err
		}
		t := now()
		var created string
		err := tx.QueryRowContext(ctx, `INSERT INTO race_preparations (id, user_id, race_event_id, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (race_event_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at
			RETURNING id, created_at`, NewID("prep"), userID, eventID, string(body), ts(t), ts(t)).Scan(&d.ID, &created)
		d.CreatedAt, d.UpdatedAt = parseTS(created), t
		return err
	})
	return d, err
}

// RacePreparation returns the preparation for one of the user's live
// events; ok is false when there is none yet.
func (s *Store) RacePreparation(ctx context.Context, userID, eventID string) (d Document, ok bool, err error) {
	if _, err := s.RaceEvent(ctx, userID, eventID); err != nil {
		return Document{}, false, err
	}
	var body, created, updated string
	err = s.conn().QueryRowContext(ctx, `SELECT id, body, created_at, updated_at FROM race_preparations WHERE user_id = ? AND race_event_id = ?`,
		userID, eventID).Scan(&d.ID, &body, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return Document{}, false, nil
	}
	d.ParentID, d.Body, d.CreatedAt, d.UpdatedAt = eventID, json.RawMessage(body), parseTS(created), parseTS(updated)
	return d, err == nil, err
}

// SaveReadinessAssessment records an assessment for one of the user's live events.
func (s *Store) SaveReadinessAssessment(ctx context.Context, userID, eventID string, body json.RawMessage) (Document, error) {
	d := Document{ID: NewID("rdy"), ParentID: eventID, Body: body, CreatedAt: now()}
	d.UpdatedAt = d.CreatedAt
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := raceEvent(ctx, tx, userID, eventID); err != nil {
			return err
		}
		if err := s.makeRoom(ctx, tx, KindReadinessAssessment, userID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO readiness_assessments (id, user_id, race_event_id, body, created_at) VALUES (?, ?, ?, ?, ?)`,
			d.ID, userID, eventID, string(body), ts(d.CreatedAt))
		return err
	})
	return d, err
}

// ReadinessAssessments lists the assessments of one of the user's live
// events, newest first.
func (s *Store) ReadinessAssessments(ctx context.Context, userID, eventID string) ([]Document, error) {
	if _, err := s.RaceEvent(ctx, userID, eventID); err != nil {
		return nil, err
	}
	return s.documents(ctx, `SELECT id, race_event_id, '', body, created_at FROM readiness_assessments
		WHERE user_id = ? AND race_event_id = ? ORDER BY created_at DESC, rowid DESC`, userID, eventID)
}

// SaveCoachingReport stores a report about one of the user's sessions.
func (s *Store) SaveCoachingReport(ctx context.Context, userID, sessionID string, body json.RawMessage) (Document, error) {
	d := Document{ID: NewID("rep"), ParentID: sessionID, Body: body, CreatedAt: now()}
	d.UpdatedAt = d.CreatedAt
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE id = ? AND user_id = ? AND deleted_at IS NULL`, sessionID, userID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		if err := s.makeRoom(ctx, tx, KindCoachingReport, userID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO coaching_reports (id, user_id, session_id, body, created_at) VALUES (?, ?, ?, ?, ?)`,
			d.ID, userID, sessionID, string(body), ts(d.CreatedAt))
		return err
	})
	return d, err
}

// CoachingReports lists the user's reports, newest first, optionally for
// one session only; limit 0 means no cap.
func (s *Store) CoachingReports(ctx context.Context, userID, sessionID string, limit int) ([]Document, error) {
	q, args := `SELECT id, session_id, '', body, created_at FROM coaching_reports WHERE user_id = ?`, []any{userID}
	if sessionID != "" {
		q += ` AND session_id = ?`
		args = append(args, sessionID)
	}
	q += ` ORDER BY created_at DESC, rowid DESC`
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	return s.documents(ctx, q, args...)
}

// SaveRaceStrategy stores a strategy for a track, optionally tied to one
// of the user's live events.
func (s *Store) SaveRaceStrategy(ctx context.Context, userID, trackID, eventID string, body json.RawMessage) (Document, error) {
	d := Document{ID: NewID("str"), ParentID: eventID, TrackID: trackID, Body: body, CreatedAt: now()}
	d.UpdatedAt = d.CreatedAt
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if eventID != "" {
			if _, err := raceEvent(ctx, tx, userID, eventID); err != nil {
				return err
			}
		}
		if err := s.makeRoom(ctx, tx, KindRaceStrategy, userID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO race_strategies (id, user_id, track_id, race_event_id, body, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			d.ID, userID, trackID, nullable(eventID), string(body), ts(d.CreatedAt))
		return err
	})
	return d, err
}

func (s *Store) documents(ctx context.Context, q string, args ...any) ([]Document, error) {
	rows, err := s.conn().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Document
	for rows.Next() {
		var d Document
		var body, created string
		if err := rows.Scan(&d.ID, &d.ParentID, &d.TrackID, &body, &created); err != nil {
			return nil, err
		}
		d.Body, d.CreatedAt = json.RawMessage(body), parseTS(created)
		d.UpdatedAt = d.CreatedAt
		out = append(out, d)
	}
	return out, rows.Err()
}

// softDelete marks a live row of the user's as deleted.
func (s *Store) softDelete(ctx context.Context, table, userID, id string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE `+table+` SET deleted_at = ? WHERE id = ? AND user_id = ? AND deleted_at IS NULL`, ts(now()), id, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// restore clears deleted_at on a row of the user's (live or not).
func (s *Store) restore(ctx context.Context, table, userID, id string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE `+table+` SET deleted_at = NULL WHERE id = ? AND user_id = ?`, id, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Deletable tables: the kinds of record DeleteX/RestoreX work on.
const (
	KindRaceEvent = "race_events"
	KindNotepad   = "notepads"
	KindTrackNote = "track_notes"
)

// Owns reports whether the user has a record of kind (KindRaceEvent,
// KindNotepad or KindTrackNote) with that ID, live or deleted. Restore
// functions use it to validate without writing.
func (s *Store) Owns(ctx context.Context, kind, userID, id string) (bool, error) {
	switch kind {
	case KindRaceEvent, KindNotepad, KindTrackNote:
	default:
		return false, errors.New("store: unknown kind " + kind)
	}
	var n int
	err := s.conn().QueryRowContext(ctx, `SELECT count(*) FROM `+kind+` WHERE id = ? AND user_id = ?`, id, userID).Scan(&n)
	return n > 0, err
}
