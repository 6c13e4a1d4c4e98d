package store

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// TestQuotasBoundEveryUserTable: a model-written script can call the write
// functions as often as the rate limit allows, so every table a user adds
// rows to must stay bounded per user, or one account fills the disk.
func TestQuotasBoundEveryUserTable(t *testing.T) {
	s, _ := open(t)
	ctx := context.Background()
	alice, bob, sessionID := fixture(t, s)
	for _, k := range []string{KindNotepad, KindTrackNote, KindRaceEvent, KindCoachingReport, KindReadinessAssessment, KindRaceStrategy} {
		s.SetQuota(k, 3)
	}
	ev, err := s.CreateRaceEvent(ctx, alice.ID, RaceEvent{Name: "Kept", TrackID: "spa", Sim: "iRacing"})
	if err != nil {
		t.Fatal(err)
	}
	body := json.RawMessage(`{}`)
	adders := map[string]func(uid string) error{
		KindNotepad: func(uid string) error {
			_, err := s.CreateNotepad(ctx, uid, Notepad{Title: "n"})
			return err
		},
		KindTrackNote: func(uid string) error {
			_, err := s.AddTrackNote(ctx, uid, TrackNote{TrackID: "spa", Note: "n"})
			return err
		},
		KindRaceEvent: func(uid string) error {
			_, err := s.CreateRaceEvent(ctx, uid, RaceEvent{Name: "e", TrackID: "spa", Sim: "iRacing"})
			return err
		},
		KindCoachingReport: func(uid string) error {
			_, err := s.SaveCoachingReport(ctx, uid, sessionID, body)
			return err
		},
		KindReadinessAssessment: func(uid string) error {
			_, err := s.SaveReadinessAssessment(ctx, uid, ev.ID, body)
			return err
		},
		KindRaceStrategy: func(uid string) error {
			_, err := s.SaveRaceStrategy(ctx, uid, "spa", "", body)
			return err
		},
	}
	for kind, add := range adders {
		t.Run(kind, func(t *testing.T) {
			var lastErr error
			for range 10 {
				if err := add(alice.ID); err != nil {
					lastErr = err
				}
			}
			n := rows(t, s, kind, alice.ID)
			if n > 3 {
				t.Fatalf("alice has %d rows, quota 3", n)
			}
			switch kind {
			case KindCoachingReport, KindReadinessAssessment, KindRaceStrategy:
				// Append-only records keep the newest: saving never fails.
				if lastErr != nil || n != 3 {
					t.Fatalf("rows %d, err %v; want the newest 3 kept", n, lastErr)
				}
			default:
				var qe *QuotaError
				if !errors.As(lastErr, &qe) || !errors.Is(lastErr, ErrQuota) || qe.Limit != 3 || qe.Kind != kind {
					t.Fatalf("err %v, want a QuotaError for %s", lastErr, kind)
				}
			}
			if kind != KindCoachingReport { // bob has no session
				if err := add(bob.ID); err != nil && kind != KindReadinessAssessment {
					t.Fatalf("bob is limited by alice's rows: %v", err)
				}
			}
		})
	}
}

// TestQuotaPurgesDeletedRowsFirst: soft-deleted rows count until room is
// needed, then the oldest of them are removed for good, so deleting
// records frees room while a create-delete loop cannot grow the table.
func TestQuotaPurgesDeletedRowsFirst(t *testing.T) {
	s, _ := open(t)
	ctx := context.Background()
	alice, _, _ := fixture(t, s)
	s.SetQuota(KindNotepad, 2)
	s.SetQuota(KindRaceEvent, 2)
	for range 50 {
		n, err := s.CreateNotepad(ctx, alice.ID, Notepad{Title: "loop"})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteNotepad(ctx, alice.ID, n.ID); err != nil {
			t.Fatal(err)
		}
	}
	if n := rows(t, s, KindNotepad, alice.ID); n > 2 {
		t.Fatalf("%d notepad rows after a create-delete loop, quota 2", n)
	}
	// A deleted race event with a preparation and an assessment is purged
	// with them; a strategy that named it keeps existing without the link.
	e, err := s.CreateRaceEvent(ctx, alice.ID, RaceEvent{Name: "old", TrackID: "spa", Sim: "iRacing"})
	if err != nil {
		t.Fatal(err)
	}
	for _, save := range []func() error{
		func() error { _, err := s.SaveRacePreparation(ctx, alice.ID, e.ID, json.RawMessage(`{}`)); return err },
		func() error {
			_, err := s.SaveReadinessAssessment(ctx, alice.ID, e.ID, json.RawMessage(`{}`))
			return err
		},
		func() error {
			_, err := s.SaveRaceStrategy(ctx, alice.ID, "spa", e.ID, json.RawMessage(`{}`))
			return err
		},
		func() error { return s.DeleteRaceEvent(ctx, alice.ID, e.ID) },
	} {
		if err := save(); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if _, err := s.CreateRaceEvent(ctx, alice.ID, RaceEvent{Name: "new", TrackID: "spa", Sim: "iRacing"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := rows(t, s, KindRaceEvent, alice.ID); n != 2 {
		t.Fatalf("%d race event rows, want 2", n)
	}
	if ok, _ := s.Owns(ctx, KindRaceEvent, alice.ID, e.ID); ok {
		t.Fatal("the deleted event was not purged")
	}
	if n := rows(t, s, KindRaceStrategy, alice.ID); n != 1 {
		t.Fatalf("%d strategies, want 1", n)
	}
}

func rows(t *testing.T, s *Store, table, userID string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM `+table+` WHERE user_id = ?`, userID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
