package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb"
)

// Notepad is a free-form note with tags.
type Notepad struct {
	ID, Title, Body      string
	Tags                 []string
	CreatedAt, UpdatedAt time.Time
}

// CreateNotepad adds a notepad for the user; n.ID may be empty.
func (s *Store) CreateNotepad(ctx context.Context, userID string, n Notepad) (Notepad, error) {
	if n.ID == "" {
		n.ID = NewID("note")
	}
	if n.Tags == nil {
		n.Tags = []string{}
	}
	n.CreatedAt = now()
	n.UpdatedAt = n.CreatedAt
	tags, _ := json.Marshal(n.Tags)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.makeRoom(ctx, tx, KindNotepad, userID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO notepads (id, user_id, title, body, tags, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			n.ID, userID, n.Title, n.Body, string(tags), ts(n.CreatedAt), ts(n.UpdatedAt))
		return err
	})
	return n, err
}

// UpdateNotepad loads the user's live notepad, lets change modify it and
// saves it in one transaction; an error from change writes nothing.
func (s *Store) UpdateNotepad(ctx context.Context, userID, id string, change func(*Notepad) error) (Notepad, error) {
	var n Notepad
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if n, err = notepad(ctx, tx, userID, id); err != nil {
			return err
		}
		if err := change(&n); err != nil {
			return err
		}
		if n.Tags == nil {
			n.Tags = []string{}
		}
		n.UpdatedAt = now()
		tags, _ := json.Marshal(n.Tags)
		_, err = tx.ExecContext(ctx, `UPDATE notepads SET title = ?, body = ?, tags = ?, updated_at = ? WHERE id = ? AND user_id = ?`,
			n.Title, n.Body, string(tags), ts(n.UpdatedAt), id, userID)
		return err
	})
	return n, err
}

// DeleteNotepad soft-deletes the user's notepad.
func (s *Store) DeleteNotepad(ctx context.Context, userID, id string) error {
	return s.softDelete(ctx, "notepads", userID, id)
}

// RestoreNotepad undoes DeleteNotepad.
func (s *Store) RestoreNotepad(ctx context.Context, userID, id string) (Notepad, error) {
	if err := s.restore(ctx, "notepads", userID, id); err != nil {
		return Notepad{}, err
	}
	return s.Notepad(ctx, userID, id)
}

// Notepad returns one of the user's live notepads.
func (s *Store) Notepad(ctx context.Context, userID, id string) (Notepad, error) {
	return notepad(ctx, s.conn(), userID, id)
}

// Notepads lists the user's live notepads, most recently updated first;
// a non-empty tag keeps those carrying it (case-insensitive).
func (s *Store) Notepads(ctx context.Context, userID, tag string) ([]Notepad, error) {
	q, args := notepadSelect, []any{userID}
	if tag != "" {
		if s.engine == sqldb.Postgres {
			q += ` AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(tags::jsonb) AS t(value) WHERE lower(t.value) = lower(?))`
		} else {
			q += ` AND EXISTS (SELECT 1 FROM json_each(tags) WHERE lower(json_each.value) = lower(?))`
		}
		args = append(args, tag)
	}
	rows, err := s.conn().QueryContext(ctx, q+` ORDER BY updated_at DESC, id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Notepad
	for rows.Next() {
		n, err := scanNotepad(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

const notepadSelect = `SELECT id, title, body, tags, created_at, updated_at FROM notepads WHERE user_id = ? AND deleted_at IS NULL`

func notepad(ctx context.Context, q querier, userID, id string) (Notepad, error) {
	n, err := scanNotepad(q.QueryRowContext(ctx, notepadSelect+` AND id = ?`, userID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Notepad{}, ErrNotFound
	}
	return n, err
}

func scanNotepad(sc interface{ Scan(...any) error }) (Notepad, error) {
	var n Notepad
	var tags, created, updated string
	if err := sc.Scan(&n.ID, &n.Title, &n.Body, &tags, &created, &updated); err != nil {
		return Notepad{}, err
	}
	n.CreatedAt, n.UpdatedAt = parseTS(created), parseTS(updated)
	err := json.Unmarshal([]byte(tags), &n.Tags)
	return n, err
}

// TrackNote is a note about a track or one of its corners.
type TrackNote struct {
	ID, TrackID string
	// CornerIndex is nil for a note about the whole track.
	CornerIndex          *int
	Note                 string
	CreatedAt, UpdatedAt time.Time
}

// AddTrackNote adds a track note for the user; n.ID may be empty.
func (s *Store) AddTrackNote(ctx context.Context, userID string, n TrackNote) (TrackNote, error) {
	if n.ID == "" {
		n.ID = NewID("tn")
	}
	n.CreatedAt = now()
	n.UpdatedAt = n.CreatedAt
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.makeRoom(ctx, tx, KindTrackNote, userID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO track_notes (id, user_id, track_id, corner_index, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			n.ID, userID, n.TrackID, n.CornerIndex, n.Note, ts(n.CreatedAt), ts(n.UpdatedAt))
		return err
	})
	return n, err
}

// UpdateTrackNote loads the user's live note, lets change modify it and
// saves it in one transaction; an error from change writes nothing.
func (s *Store) UpdateTrackNote(ctx context.Context, userID, id string, change func(*TrackNote) error) (TrackNote, error) {
	var n TrackNote
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if n, err = trackNote(ctx, tx, userID, id); err != nil {
			return err
		}
		if err := change(&n); err != nil {
			return err
		}
		n.UpdatedAt = now()
		_, err = tx.ExecContext(ctx, `UPDATE track_notes SET corner_index = ?, note = ?, updated_at = ? WHERE id = ? AND user_id = ?`,
			n.CornerIndex, n.Note, ts(n.UpdatedAt), id, userID)
		return err
	})
	return n, err
}

// DeleteTrackNote soft-deletes the user's track note.
func (s *Store) DeleteTrackNote(ctx context.Context, userID, id string) error {
	return s.softDelete(ctx, "track_notes", userID, id)
}

// RestoreTrackNote undoes DeleteTrackNote.
func (s *Store) RestoreTrackNote(ctx context.Context, userID, id string) (TrackNote, error) {
	if err := s.restore(ctx, "track_notes", userID, id); err != nil {
		return TrackNote{}, err
	}
	return trackNote(ctx, s.conn(), userID, id)
}

// TrackNotes lists the user's live notes for a track, by corner then age;
// a non-nil cornerIndex keeps that corner's notes only.
func (s *Store) TrackNotes(ctx context.Context, userID, trackID string, cornerIndex *int) ([]TrackNote, error) {
	q, args := trackNoteSelect+` AND track_id = ?`, []any{userID, trackID}
	if cornerIndex != nil {
		q += ` AND corner_index = ?`
		args = append(args, *cornerIndex)
	}
	rows, err := s.conn().QueryContext(ctx, q+` ORDER BY corner_index IS NOT NULL, corner_index, created_at, id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TrackNote
	for rows.Next() {
		n, err := scanTrackNote(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

const trackNoteSelect = `SELECT id, track_id, corner_index, note, created_at, updated_at FROM track_notes WHERE user_id = ? AND deleted_at IS NULL`

func trackNote(ctx context.Context, q querier, userID, id string) (TrackNote, error) {
	n, err := scanTrackNote(q.QueryRowContext(ctx, trackNoteSelect+` AND id = ?`, userID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return TrackNote{}, ErrNotFound
	}
	return n, err
}

func scanTrackNote(sc interface{ Scan(...any) error }) (TrackNote, error) {
	var n TrackNote
	var corner sql.NullInt64
	var created, updated string
	err := sc.Scan(&n.ID, &n.TrackID, &corner, &n.Note, &created, &updated)
	if corner.Valid {
		c := int(corner.Int64)
		n.CornerIndex = &c
	}
	n.CreatedAt, n.UpdatedAt = parseTS(created), parseTS(updated)
	return n, err
}

// TrackNote returns one of the user's live track notes.
func (s *Store) TrackNote(ctx context.Context, userID, id string) (TrackNote, error) {
	return trackNote(ctx, s.conn(), userID, id)
}
