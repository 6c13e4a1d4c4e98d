package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Car is a car model drivers can choose.
type Car struct {
	ID, Name, Class string
	// FuelTankL is the fuel tank capacity in litres.
	FuelTankL float64
}

// Session is one outing on track, with lap statistics computed from its laps.
type Session struct {
	ID, UserID, Sim, TrackID, CarID, CarName, Type string
	StartedAt                                      time.Time
	Weather                                        string
	TrackTempC, AirTempC                           float64
	// LapCount counts all laps, ValidLapCount the valid ones.
	LapCount, ValidLapCount int
	// BestLapMs is the fastest valid lap (0 without one).
	BestLapMs int
}

// Lap is one timed lap.
type Lap struct {
	Number, TimeMs int
	SectorMs       [3]int
	Valid          bool
	FuelUsedL      float64
}

// SessionInput is a session to insert with its laps.
type SessionInput struct {
	ID, UserID, Sim, TrackID, CarID, Type string
	StartedAt                             time.Time
	Weather                               string
	TrackTempC, AirTempC                  float64
	Laps                                  []LapInput
}

// LapInput is a lap to insert; Telemetry is the telemetry package's encoding.
type LapInput struct {
	Lap
	Telemetry []byte
}

// SessionFilter narrows Sessions. Zero fields do not filter.
type SessionFilter struct {
	// TrackID must match exactly.
	TrackID string
	// CarName matches case-insensitively anywhere in the car's name.
	CarName string
	// Sim matches case-insensitively; Type exactly.
	Sim, Type string
	// Since keeps sessions started at or after it.
	Since time.Time
	// Limit caps the result; 0 means no cap.
	Limit int
}

// UpsertCars adds or updates cars by ID.
func (s *Store) UpsertCars(ctx context.Context, cars []Car) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		for _, c := range cars {
			if _, err := tx.ExecContext(ctx, `INSERT INTO cars (id, name, class, fuel_tank_l) VALUES (?, ?, ?, ?)
				ON CONFLICT (id) DO UPDATE SET name = excluded.name, class = excluded.class, fuel_tank_l = excluded.fuel_tank_l`,
				c.ID, c.Name, c.Class, c.FuelTankL); err != nil {
				return fmt.Errorf("store: car %s: %w", c.ID, err)
			}
		}
		return nil
	})
}

// Cars lists every car by name.
func (s *Store) Cars(ctx context.Context) ([]Car, error) {
	rows, err := s.conn().QueryContext(ctx, `SELECT id, name, class, fuel_tank_l FROM cars ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Car
	for rows.Next() {
		var c Car
		if err := rows.Scan(&c.ID, &c.Name, &c.Class, &c.FuelTankL); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// InsertSessions inserts sessions with their laps and telemetry in one
// transaction: all of them or none. IDs left empty are generated.
func (s *Store) InsertSessions(ctx context.Context, sessions []SessionInput) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		insSession, err := tx.PrepareContext(ctx, `INSERT INTO sessions (id, user_id, sim, track_id, car_id, type, started_at, weather, track_temp_c, air_temp_c)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer insSession.Close()
		insLap, err := tx.PrepareContext(ctx, `INSERT INTO laps (session_id, lap_number, lap_time_ms, s1_ms, s2_ms, s3_ms, valid, fuel_used_l)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer insLap.Close()
		insTel, err := tx.PrepareContext(ctx, `INSERT INTO lap_telemetry (session_id, lap_number, data) VALUES (?, ?, ?)`)
		if err != nil {
			return err
		}
		defer insTel.Close()
		for i := range sessions {
			in := &sessions[i]
			if in.ID == "" {
				in.ID = NewID("ses")
			}
			if _, err := insSession.ExecContext(ctx, in.ID, in.UserID, in.Sim, in.TrackID, in.CarID, in.Type, ts(in.StartedAt),
				in.Weather, in.TrackTempC, in.AirTempC); err != nil {
				return fmt.Errorf("store: session %s: %w", in.ID, err)
			}
			for _, l := range in.Laps {
				if _, err := insLap.ExecContext(ctx, in.ID, l.Number, l.TimeMs, l.SectorMs[0], l.SectorMs[1], l.SectorMs[2], boolInt(l.Valid), l.FuelUsedL); err != nil {
					return fmt.Errorf("store: session %s lap %d: %w", in.ID, l.Number, err)
				}
				if l.Telemetry != nil {
					if _, err := insTel.ExecContext(ctx, in.ID, l.Number, l.Telemetry); err != nil {
						return fmt.Errorf("store: session %s lap %d telemetry: %w", in.ID, l.Number, err)
					}
				}
			}
		}
		return nil
	})
}

const sessionSelect = `SELECT s.id, s.user_id, s.sim, s.track_id, s.car_id, c.name, s.type, s.started_at, s.weather, s.track_temp_c, s.air_temp_c,
	(SELECT count(*) FROM laps l WHERE l.session_id = s.id),
	(SELECT count(*) FROM laps l WHERE l.session_id = s.id AND l.valid = 1),
	(SELECT coalesce(min(l.lap_time_ms), 0) FROM laps l WHERE l.session_id = s.id AND l.valid = 1)
	FROM sessions s JOIN cars c ON c.id = s.car_id
	WHERE s.user_id = ? AND s.deleted_at IS NULL`

func scanSession(sc interface{ Scan(...any) error }) (Session, error) {
	var x Session
	var started string
	err := sc.Scan(&x.ID, &x.UserID, &x.Sim, &x.TrackID, &x.CarID, &x.CarName, &x.Type, &started, &x.Weather, &x.TrackTempC, &x.AirTempC,
		&x.LapCount, &x.ValidLapCount, &x.BestLapMs)
	x.StartedAt = parseTS(started)
	return x, err
}

// Sessions lists a user's sessions, newest first.
func (s *Store) Sessions(ctx context.Context, userID string, f SessionFilter) ([]Session, error) {
	q := sessionSelect
	args := []any{userID}
	if f.TrackID != "" {
		q += ` AND s.track_id = ?`
		args = append(args, f.TrackID)
	}
	if f.CarName != "" {
		q += ` AND instr(lower(c.name), lower(?)) > 0`
		args = append(args, strings.TrimSpace(f.CarName))
	}
	if f.Sim != "" {
		q += ` AND lower(s.sim) = lower(?)`
		args = append(args, f.Sim)
	}
	if f.Type != "" {
		q += ` AND s.type = ?`
		args = append(args, f.Type)
	}
	if !f.Since.IsZero() {
		q += ` AND s.started_at >= ?`
		args = append(args, ts(f.Since))
	}
	q += ` ORDER BY s.started_at DESC, s.id`
	if f.Limit > 0 {
		q += fmt.Sprintf(` LIMIT %d`, f.Limit)
	}
	rows, err := s.conn().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		x, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// Session returns one of the user's sessions.
func (s *Store) Session(ctx context.Context, userID, id string) (Session, error) {
	x, err := scanSession(s.conn().QueryRowContext(ctx, sessionSelect+` AND s.id = ?`, userID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, ErrNotFound
	}
	return x, err
}

// Laps returns the laps of one of the user's sessions in order.
func (s *Store) Laps(ctx context.Context, userID, sessionID string) ([]Lap, error) {
	if _, err := s.Session(ctx, userID, sessionID); err != nil {
		return nil, err
	}
	rows, err := s.conn().QueryContext(ctx, `SELECT lap_number, lap_time_ms, s1_ms, s2_ms, s3_ms, valid, fuel_used_l FROM laps
		WHERE session_id = ? ORDER BY lap_number`, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Lap
	for rows.Next() {
		var l Lap
		if err := rows.Scan(&l.Number, &l.TimeMs, &l.SectorMs[0], &l.SectorMs[1], &l.SectorMs[2], &l.Valid, &l.FuelUsedL); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// LapTelemetry returns the encoded telemetry of one lap of the user's
// session; a missing lap or one without telemetry gives ErrNotFound.
func (s *Store) LapTelemetry(ctx context.Context, userID, sessionID string, lap int) ([]byte, error) {
	var b []byte
	err := s.conn().QueryRowContext(ctx, `SELECT t.data FROM lap_telemetry t JOIN sessions s ON s.id = t.session_id
		WHERE s.user_id = ? AND s.deleted_at IS NULL AND t.session_id = ? AND t.lap_number = ?`, userID, sessionID, lap).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return b, err
}

// SessionTelemetry returns the encoded telemetry of every lap of the
// user's session that has some, keyed by lap number. validOnly keeps only
// valid laps.
func (s *Store) SessionTelemetry(ctx context.Context, userID, sessionID string, validOnly bool) (map[int][]byte, error) {
	if _, err := s.Session(ctx, userID, sessionID); err != nil {
		return nil, err
	}
	q := `SELECT t.lap_number, t.data FROM lap_telemetry t JOIN laps l ON l.session_id = t.session_id AND l.lap_number = t.lap_number
		WHERE t.session_id = ?`
	if validOnly {
		q += ` AND l.valid = 1`
	}
	rows, err := s.conn().QueryContext(ctx, q, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int][]byte{}
	for rows.Next() {
		var n int
		var b []byte
		if err := rows.Scan(&n, &b); err != nil {
			return nil, err
		}
		out[n] = b
	}
	return out, rows.Err()
}

// boolInt stores a flag as the 0 or 1 both engines' valid columns hold.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
