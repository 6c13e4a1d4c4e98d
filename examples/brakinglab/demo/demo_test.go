package demo

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/examples/brakinglab/analysis"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
	"github.com/brakinglab/codemode-go/examples/brakinglab/telemetry"
	"github.com/brakinglab/codemode-go/examples/brakinglab/tracks"
)

var day = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func TestGenerateIsDeterministic(t *testing.T) {
	a, err := Generate(day)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(day.Add(3 * time.Hour)) // same UTC day
	if len(a.Sessions) != len(b.Sessions) || a.Users[0].ID != b.Users[0].ID {
		t.Fatal("different data for the same day")
	}
	for i := range a.Sessions {
		sa, sb := a.Sessions[i], b.Sessions[i]
		if sa.ID != sb.ID || len(sa.Laps) != len(sb.Laps) || !bytes.Equal(sa.Laps[0].Telemetry, sb.Laps[0].Telemetry) {
			t.Fatalf("session %d differs", i)
		}
	}
}

// TestLapTimesMatchTelemetry checks every lap's time and sectors against
// its own telemetry, and that times are realistic for the track.
func TestLapTimesMatchTelemetry(t *testing.T) {
	d, _ := Generate(day)
	for _, s := range d.Sessions {
		tr, _ := tracks.ByID(s.TrackID)
		for _, l := range s.Laps {
			dec, err := telemetry.Decode(l.Telemetry)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(dec.LapMs()-float64(l.TimeMs)) > 0.5 || l.SectorMs[0]+l.SectorMs[1]+l.SectorMs[2] != l.TimeMs {
				t.Fatalf("%s lap %d: time %d, telemetry %v, sectors %v", s.ID, l.Number, l.TimeMs, dec.LapMs(), l.SectorMs)
			}
			ref := float64(tr.ReferenceLapMs) * simCars[s.CarID].Pace
			if r := float64(l.TimeMs) / ref; r < 1 || r > 1.06 {
				t.Fatalf("%s lap %d: %d ms is %.3f× the reference", tr.Name, l.Number, l.TimeMs, r)
			}
		}
	}
}

// TestDemoHabits checks the analysis finds what the generator put in:
// the demo driver improves at Spa and brakes late into La Source.
func TestDemoHabits(t *testing.T) {
	d, _ := Generate(day)
	spa, _ := tracks.ByID("spa")
	var bests []float64
	var all, recent [][]analysis.CornerLap
	var spaSessions []store.SessionInput
	for _, s := range d.Sessions {
		if s.UserID == d.Users[0].ID && s.TrackID == "spa" {
			spaSessions = append(spaSessions, s)
		}
	}
	for i, s := range spaSessions {
		best := math.Inf(1)
		for _, l := range s.Laps {
			if !l.Valid {
				continue
			}
			best = math.Min(best, float64(l.TimeMs))
			tr, _ := telemetry.Decode(l.Telemetry)
			cl := analysis.Corners(spa, tr)
			all = append(all, cl)
			if i >= len(spaSessions)-5 {
				recent = append(recent, cl)
			}
		}
		bests = append(bests, best)
	}
	if tr := analysis.TrendOf(bests, 50); tr != analysis.Improving {
		t.Errorf("Spa bests %v: trend %s, want improving", bests, tr)
	}
	weak := analysis.WeakCorners(spa, all, recent)
	var laSource analysis.Weakness
	for _, w := range weak {
		if w.CornerIndex == 0 {
			laSource = w
		}
	}
	if laSource.TopIssue != analysis.LateBraking || laSource.Score < 30 {
		t.Errorf("La Source: %+v, want late braking with a clear score", laSource)
	}
	for _, w := range weak[:5] {
		t.Logf("%-12s score %3d %-20s lost %5.0f ms sd %4.0f", w.CornerName, w.Score, w.TopIssue, w.TimeLostMs, w.StdDevMs)
	}
}

func TestSeedStore(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "demo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ok, err := SeedStore(ctx, st, &Options{Now: day, Passwords: map[string]string{"rival": "s3cret"}})
	if err != nil || !ok {
		t.Fatalf("first seed: %v %v", ok, err)
	}
	counts := map[string]int{}
	for _, table := range store.Tables() {
		counts[table], _ = st.Count(ctx, table)
	}
	if ok, err := SeedStore(ctx, st, &Options{Now: day}); err != nil || ok {
		t.Fatalf("second seed: %v %v", ok, err)
	}
	for _, table := range store.Tables() {
		if n, _ := st.Count(ctx, table); n != counts[table] {
			t.Errorf("%s: %d rows after reseeding, had %d", table, n, counts[table])
		}
	}
	if _, err := st.AuthenticateUser(ctx, "demo", DefaultPasswords["demo"]); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AuthenticateUser(ctx, "rival", "s3cret"); err != nil {
		t.Fatal(err)
	}
	if counts["sessions"] < 25 || counts["lap_telemetry"] != counts["laps"] || counts["race_events"] < 4 {
		t.Fatalf("counts %v", counts)
	}
}

func BenchmarkGenerate(b *testing.B) {
	for b.Loop() {
		if _, err := Generate(day); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSeedStore(b *testing.B) {
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		st, err := store.Open(ctx, filepath.Join(b.TempDir(), fmt.Sprintf("demo%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := SeedStore(ctx, st, &Options{Now: day}); err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}
