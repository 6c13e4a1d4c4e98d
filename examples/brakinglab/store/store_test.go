package store

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb"
	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb/sqldbtest"
)

// TestOnPostgreSQL runs every other test of the package again with the
// store on PostgreSQL.
func TestOnPostgreSQL(t *testing.T) {
	sqldbtest.RunOnPostgres(t, sqldbtest.Server(t))
}

// open opens a new store: an SQLite file, or a PostgreSQL database in the
// PostgreSQL pass. It returns the store and its DSN.
func open(t *testing.T) (*Store, string) {
	t.Helper()
	path := sqldbtest.DSN(t)
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// fixture creates users alice and bob, a car and one session for alice.
func fixture(t *testing.T, s *Store) (alice, bob User, sessionID string) {
	t.Helper()
	ctx := context.Background()
	var err error
	if alice, err = s.CreateUser(ctx, "", "alice", "Alice", "pw-alice"); err != nil {
		t.Fatal(err)
	}
	if bob, err = s.CreateUser(ctx, "", "bob", "Bob", "pw-bob"); err != nil {
		t.Fatal(err)
	}
	if err := s.UpsertCars(ctx, []Car{{ID: "gt3", Name: "Porsche 911 GT3 R", Class: "GT3", FuelTankL: 120}}); err != nil {
		t.Fatal(err)
	}
	in := []SessionInput{{UserID: alice.ID, Sim: "iRacing", TrackID: "spa", CarID: "gt3", Type: "practice",
		StartedAt: time.Date(2026, 11, 1, 18, 0, 0, 0, time.UTC), Weather: "dry", TrackTempC: 25, AirTempC: 18,
		Laps: []LapInput{
			{Lap: Lap{Number: 1, TimeMs: 139000, SectorMs: [3]int{45000, 50000, 44000}, Valid: true, FuelUsedL: 3.1}, Telemetry: []byte("t1")},
			{Lap: Lap{Number: 2, TimeMs: 138000, SectorMs: [3]int{44500, 49500, 44000}, Valid: false, FuelUsedL: 3.0}},
			{Lap: Lap{Number: 3, TimeMs: 138500, SectorMs: [3]int{44500, 50000, 44000}, Valid: true, FuelUsedL: 3.0}, Telemetry: []byte("t3")},
		}}}
	if err := s.InsertSessions(ctx, in); err != nil {
		t.Fatal(err)
	}
	return alice, bob, in[0].ID
}

func TestOpenMigratesOnceAndReopens(t *testing.T) {
	s, path := open(t)
	ctx := context.Background()
	n, err := s.Count(ctx, "tracks")
	if err != nil || n != 6 {
		t.Fatalf("tracks = %d, %v", n, err)
	}
	if s.Engine() == sqldb.SQLite {
		var mode string
		if err := s.DB().QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
			t.Fatalf("journal_mode = %q, %v", mode, err)
		}
		var fk int
		if err := s.DB().QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
			t.Fatalf("foreign_keys = %d, %v", fk, err)
		}
	} else if !sqldbtest.OnPostgres() || s.Engine() != sqldb.Postgres {
		t.Fatalf("engine %s in the PostgreSQL pass %v", s.Engine(), sqldbtest.OnPostgres())
	}
	s.Close()
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if err := s2.DB().QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != migrationCount(t) {
		t.Fatalf("migrations = %d, %v", n, err)
	}
}

// TestOpenTogether opens one database from several stores at once, as
// replicas starting together do: each migration is applied once and every
// store works.
func TestOpenTogether(t *testing.T) {
	dsn := sqldbtest.DSN(t)
	ctx := context.Background()
	const n = 4
	stores := make([]*Store, n)
	errs := make(chan error, n)
	for i := range n {
		go func() {
			var err error
			stores[i], err = Open(ctx, dsn)
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range stores {
		defer s.Close()
		if got, err := s.Count(ctx, "tracks"); err != nil || got != 6 {
			t.Fatalf("tracks = %d, %v", got, err)
		}
	}
	var m int
	if err := stores[0].DB().QueryRow(`SELECT count(*) FROM schema_migrations`).Scan(&m); err != nil || m != migrationCount(t) {
		t.Fatalf("migrations = %d, %v", m, err)
	}
}

func TestUsers(t *testing.T) {
	s, _ := open(t)
	ctx := context.Background()
	alice, _, _ := fixture(t, s)
	if _, err := s.CreateUser(ctx, "", "ALICE", "x", "y"); !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate username: %v", err)
	}
	tests := []struct {
		user, pw string
		err      error
	}{
		{"alice", "pw-alice", nil},
		{"Alice", "pw-alice", nil},
		{"alice", "pw-bob", ErrInvalidCredentials},
		{"nobody", "pw-alice", ErrInvalidCredentials},
	}
	for _, tt := range tests {
		u, err := s.AuthenticateUser(ctx, tt.user, tt.pw)
		if !errors.Is(err, tt.err) || (err == nil && u.ID != alice.ID) {
			t.Errorf("AuthenticateUser(%q, %q) = %+v, %v", tt.user, tt.pw, u, err)
		}
	}
	if u, err := s.UserBySubject(ctx, alice.ID); err != nil || u.Username != "alice" {
		t.Fatalf("UserBySubject = %+v, %v", u, err)
	}
	if _, err := s.UserBySubject(ctx, "usr_missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing subject: %v", err)
	}
}

func TestSessionsAreOwned(t *testing.T) {
	s, _ := open(t)
	ctx := context.Background()
	alice, bob, sid := fixture(t, s)
	got, err := s.Sessions(ctx, alice.ID, SessionFilter{TrackID: "spa", CarName: "gt3 r"})
	if err != nil || len(got) != 1 {
		t.Fatalf("Sessions = %v, %v", got, err)
	}
	if x := got[0]; x.LapCount != 3 || x.ValidLapCount != 2 || x.BestLapMs != 138500 || x.CarName != "Porsche 911 GT3 R" {
		t.Fatalf("session %+v", x)
	}
	if got, _ := s.Sessions(ctx, alice.ID, SessionFilter{CarName: "Ferrari"}); len(got) != 0 {
		t.Fatal("car filter ignored")
	}
	if b, err := s.LapTelemetry(ctx, alice.ID, sid, 3); err != nil || string(b) != "t3" {
		t.Fatalf("telemetry %q %v", b, err)
	}
	if m, err := s.SessionTelemetry(ctx, alice.ID, sid, true); err != nil || len(m) != 2 {
		t.Fatalf("session telemetry %v %v", m, err)
	}
	// Bob sees nothing of Alice's.
	if got, _ := s.Sessions(ctx, bob.ID, SessionFilter{}); len(got) != 0 {
		t.Fatal("bob lists alice's sessions")
	}
	for name, err := range map[string]error{
		"Session":      func() error { _, err := s.Session(ctx, bob.ID, sid); return err }(),
		"Laps":         func() error { _, err := s.Laps(ctx, bob.ID, sid); return err }(),
		"LapTelemetry": func() error { _, err := s.LapTelemetry(ctx, bob.ID, sid, 1); return err }(),
		"Report": func() error {
			_, err := s.SaveCoachingReport(ctx, bob.ID, sid, json.RawMessage(`{}`))
			return err
		}(),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s as bob: %v, want ErrNotFound", name, err)
		}
	}
	if n, _ := s.Count(ctx, "coaching_reports"); n != 0 {
		t.Fatal("bob's report was written")
	}
}

func TestSoftDeleteAndRestore(t *testing.T) {
	s, _ := open(t)
	ctx := context.Background()
	alice, bob, _ := fixture(t, s)
	n, err := s.CreateNotepad(ctx, alice.ID, Notepad{Title: "Spa", Body: "brake at the 100 board", Tags: []string{"Spa", "braking"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Notepads(ctx, alice.ID, "spa"); len(got) != 1 {
		t.Fatalf("tag filter: %v", got)
	}
	if err := s.DeleteNotepad(ctx, bob.ID, n.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("bob deleted alice's notepad: %v", err)
	}
	if err := s.DeleteNotepad(ctx, alice.ID, n.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Notepad(ctx, alice.ID, n.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted notepad still readable: %v", err)
	}
	if err := s.DeleteNotepad(ctx, alice.ID, n.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := s.RestoreNotepad(ctx, bob.ID, n.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("bob restored: %v", err)
	}
	got, err := s.RestoreNotepad(ctx, alice.ID, n.ID)
	if err != nil || got.Body != n.Body || len(got.Tags) != 2 {
		t.Fatalf("restore = %+v, %v", got, err)
	}

	ev, err := s.CreateRaceEvent(ctx, alice.ID, RaceEvent{Name: "Spa 1h", TrackID: "spa", Sim: "iRacing", StartsAt: time.Now().Add(48 * time.Hour), DurationMin: 60})
	if err != nil {
		t.Fatal(err)
	}
	// A failing change writes nothing.
	boom := errors.New("boom")
	if _, err := s.UpdateRaceEvent(ctx, alice.ID, ev.ID, func(e *RaceEvent) error { e.Name = "changed"; return boom }); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if e, _ := s.RaceEvent(ctx, alice.ID, ev.ID); e.Name != "Spa 1h" {
		t.Fatalf("aborted update wrote %q", e.Name)
	}
	if err := s.DeleteRaceEvent(ctx, alice.ID, ev.ID); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.RaceEvents(ctx, alice.ID, RaceEventFilter{}); len(list) != 0 {
		t.Fatal("deleted event listed")
	}
	if _, err := s.SaveRacePreparation(ctx, alice.ID, ev.ID, json.RawMessage(`{}`)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("preparation for deleted event: %v", err)
	}
	if _, err := s.RestoreRaceEvent(ctx, alice.ID, ev.ID); err != nil {
		t.Fatal(err)
	}
	p1, err := s.SaveRacePreparation(ctx, alice.ID, ev.ID, json.RawMessage(`{"v":1}`))
	if err != nil {
		t.Fatal(err)
	}
	p2, err := s.SaveRacePreparation(ctx, alice.ID, ev.ID, json.RawMessage(`{"v":2}`))
	if err != nil || p2.ID != p1.ID {
		t.Fatalf("upsert changed id: %v %v", p1.ID, p2.ID)
	}
	if p, ok, err := s.RacePreparation(ctx, alice.ID, ev.ID); err != nil || !ok || string(p.Body) != `{"v":2}` {
		t.Fatalf("preparation %s %v %v", p.Body, ok, err)
	}

	corner := 0
	tn, err := s.AddTrackNote(ctx, alice.ID, TrackNote{TrackID: "spa", CornerIndex: &corner, Note: "late apex"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteTrackNote(ctx, alice.ID, tn.ID); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.TrackNotes(ctx, alice.ID, "spa", nil); len(list) != 0 {
		t.Fatal("deleted note listed")
	}
	if got, err := s.RestoreTrackNote(ctx, alice.ID, tn.ID); err != nil || *got.CornerIndex != 0 {
		t.Fatalf("restore note %+v %v", got, err)
	}
}

func TestInsertSessionsIsAtomic(t *testing.T) {
	s, _ := open(t)
	ctx := context.Background()
	alice, _, _ := fixture(t, s)
	bad := []SessionInput{
		{UserID: alice.ID, Sim: "iRacing", TrackID: "spa", CarID: "gt3", Type: "practice", StartedAt: time.Now()},
		{UserID: alice.ID, Sim: "iRacing", TrackID: "nowhere", CarID: "gt3", Type: "practice", StartedAt: time.Now()},
	}
	if err := s.InsertSessions(ctx, bad); err == nil {
		t.Fatal("foreign key not enforced")
	}
	if n, _ := s.Count(ctx, "sessions"); n != 1 {
		t.Fatalf("sessions = %d after a failed batch, want 1", n)
	}
}

func TestInTxRollsBack(t *testing.T) {
	s, _ := open(t)
	ctx := context.Background()
	alice, _, _ := fixture(t, s)
	boom := errors.New("boom")
	err := s.InTx(ctx, func(tx *Store) error {
		if _, err := tx.CreateNotepad(ctx, alice.ID, Notepad{Title: "a"}); err != nil {
			return err
		}
		if n, _ := tx.Count(ctx, "notepads"); n != 1 {
			t.Errorf("inside the transaction: %d notepads", n)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if n, _ := s.Count(ctx, "notepads"); n != 0 {
		t.Fatalf("%d notepads after rollback", n)
	}
	if _, err := s.Count(ctx, "sqlite_master; DROP TABLE users"); err == nil {
		t.Fatal("Count accepted an unknown table")
	}
}

// migrationCount is the number of migrations of an engine.
func migrationCount(t *testing.T) int {
	names, err := fs.Glob(migrations, "migrations/sqlite/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	return len(names)
}
