package analysis

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/examples/brakinglab/telemetry"
	"github.com/brakinglab/codemode-go/examples/brakinglab/tracks"
)

// A 400 m track with apexes at 100 m and 300 m: corner 0 covers [0, 200),
// corner 1 covers [200, 400). Sectors end at 100 m and 250 m.
var testTrack = tracks.Track{
	ID: "test", Name: "Test Ring", LengthM: 400, SectorEndsM: [2]float64{100, 250},
	Corners: []tracks.Corner{{Index: 0, Name: "Hairpin", ApexM: 100}, {Index: 1, Name: "Kink", ApexM: 300}},
}

// testLap is 72 km/h (20 m/s) everywhere except a braking zone into the
// hairpin: segments 6–9 brake 0.3, 0.8, 0.6, 0.02; segments 7–10 run at
// 54, 36, 36, 54 km/h; the driver turns (steering 0.5) in segment 8.
func testLap() telemetry.Trace {
	tr := telemetry.Make(400, 10)
	for i := range tr.SpeedKph {
		tr.SpeedKph[i] = 72
		tr.Throttle[i] = 1
		tr.Gear[i] = 3
	}
	copy(tr.SpeedKph[7:], []float64{54, 36, 36, 54})
	copy(tr.Brake[6:], []float64{0.3, 0.8, 0.6, 0.02})
	tr.Steering[8] = 0.5
	return tr
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-3 }

func TestCorners(t *testing.T) {
	got := Corners(testTrack, testLap())
	// Corner 0: 16 segments at 500 ms, two at 666.67 ms, two at 1000 ms.
	// Brake point: 0.1 is a third of the way from 0 (mid 55 m) to 0.3 (mid 65 m).
	// Release: 0.05 is 0.55/0.58 of the way from 0.6 (mid 85 m) to 0.02 (mid 95 m): 94.483 m.
	// Braking: segments 6–8 at 20, 15, 10 m/s; trail braking: segment 8 only.
	want0 := CornerLap{
		CornerIndex: 0, TimeMs: 11333.333, EntrySpeedKph: 72, MinSpeedKph: 36, MinSpeedAtM: 85, ExitSpeedKph: 72,
		Braked: true, BrakePointM: 58.333, PeakBrake: 0.8, ReleasePointM: 94.483, BrakingMs: 2166.667, TrailBrakeMs: 1000,
	}
	want1 := CornerLap{CornerIndex: 1, TimeMs: 10000, EntrySpeedKph: 72, MinSpeedKph: 72, MinSpeedAtM: 205, ExitSpeedKph: 72}
	for i, want := range []CornerLap{want0, want1} {
		g := got[i]
		if g.CornerIndex != want.CornerIndex || g.Braked != want.Braked || !near(g.TimeMs, want.TimeMs) ||
			!near(g.EntrySpeedKph, want.EntrySpeedKph) || !near(g.MinSpeedKph, want.MinSpeedKph) ||
			!near(g.MinSpeedAtM, want.MinSpeedAtM) || !near(g.ExitSpeedKph, want.ExitSpeedKph) ||
			!near(g.BrakePointM, want.BrakePointM) || !near(g.PeakBrake, want.PeakBrake) ||
			!near(g.ReleasePointM, want.ReleasePointM) || !near(g.BrakingMs, want.BrakingMs) || !near(g.TrailBrakeMs, want.TrailBrakeMs) {
			t.Errorf("corner %d:\n got %+v\nwant %+v", i, g, want)
		}
	}
}

func TestSectorsAndCompare(t *testing.T) {
	a := testLap()
	s := SectorTimes(testTrack, a)
	for i, want := range []float64{6166.667, 7666.667, 7500} {
		if !near(s[i], want) {
			t.Errorf("sector %d = %v, want %v", i+1, s[i], want)
		}
	}
	b := testLap()
	b.SpeedKph[8] = 54 // one segment at 15 m/s instead of 10 m/s: 333.33 ms faster
	c, err := CompareLaps(testTrack, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if !near(c.DeltaMs, -333.333) || !near(c.Corners[0].DeltaMs, -333.333) || !near(c.Corners[1].DeltaMs, 0) ||
		!near(c.Corners[1].CumulativeDeltaMs, -333.333) || !near(c.Sectors[0].DeltaMs, -333.333) ||
		!near(c.Sectors[2].CumulativeDeltaMs, -333.333) || c.Corners[0].B.MinSpeedKph != 36 {
		t.Fatalf("comparison %+v", c)
	}
	other := telemetry.Make(500, 10)
	if _, err := CompareLaps(testTrack, a, other); !errors.Is(err, ErrDifferentTracks) {
		t.Fatalf("different lengths: %v", err)
	}
}

func TestWeakCorners(t *testing.T) {
	best := []CornerLap{
		{CornerIndex: 0, TimeMs: 5000, Braked: true, BrakePointM: 100, MinSpeedKph: 80, ExitSpeedKph: 120, TrailBrakeMs: 300},
		{CornerIndex: 1, TimeMs: 4000, MinSpeedKph: 200, ExitSpeedKph: 210},
	}
	lap := func(ms, bp, minKph float64) []CornerLap {
		l := []CornerLap{best[0], best[1]}
		l[0].TimeMs, l[0].BrakePointM, l[0].MinSpeedKph, l[0].ExitSpeedKph = ms, bp, minKph, 117
		return l
	}
	// Recent laps: 5100 and 5300 ms (mean 5200, sd 100), braking 12 and 16 m
	// later, 4 and 2 km/h slower at the apex, 3 km/h slower on exit.
	// Score: 0.7·200/400 + 0.3·100/250 = 0.47. Late braking 14/8 beats
	// over-slowing 3/3 and inconsistency 100/150.
	got := WeakCorners(testTrack, [][]CornerLap{best}, [][]CornerLap{lap(5100, 112, 76), lap(5300, 116, 78)})
	if len(got) != 2 {
		t.Fatalf("got %d corners", len(got))
	}
	w := got[0]
	if w.CornerIndex != 0 || w.CornerName != "Hairpin" || w.Score != 47 || w.TopIssue != LateBraking ||
		!near(w.TimeLostMs, 200) || !near(w.StdDevMs, 100) || !near(w.BrakePointDeltaM, 14) || w.Laps != 2 {
		t.Fatalf("weakest %+v", w)
	}
	if k := got[1]; k.CornerIndex != 1 || k.Score != 0 || k.TimeLostMs != 0 || k.TopIssue != Inconsistent {
		t.Fatalf("kink %+v", k)
	}
	if WeakCorners(testTrack, nil, nil) != nil {
		t.Fatal("no recent laps should give no result")
	}
}

func TestDiagnose(t *testing.T) {
	tests := []struct {
		w    Weakness
		want Issue
	}{
		{Weakness{BrakePointDeltaM: 10, MinSpeedDeltaKph: -1}, LateBraking},
		{Weakness{BrakePointDeltaM: 10, MinSpeedDeltaKph: 1, ExitSpeedDeltaKph: 1}, Inconsistent}, // later but not slower: no symptom
		{Weakness{BrakePointDeltaM: -12}, EarlyBraking},
		{Weakness{MinSpeedDeltaKph: -6, ExitSpeedDeltaKph: -6}, OverSlowing},
		{Weakness{MinSpeedDeltaKph: 0, ExitSpeedDeltaKph: -6}, PoorExit},
		{Weakness{TrailBrakeDeltaMs: -200, StdDevMs: 50}, TrailBrakeRelease},
		{Weakness{StdDevMs: 300, MinSpeedDeltaKph: -3}, Inconsistent},
	}
	for _, tt := range tests {
		if got := Diagnose(tt.w); got != tt.want {
			t.Errorf("Diagnose(%+v) = %s, want %s", tt.w, got, tt.want)
		}
	}
}

func TestAggregate(t *testing.T) {
	l1 := []CornerLap{{TimeMs: 1000, Braked: true, BrakePointM: 100, PeakBrake: 0.9, MinSpeedKph: 60}}
	l2 := []CornerLap{{TimeMs: 1200, Braked: true, BrakePointM: 104, PeakBrake: 0.7, MinSpeedKph: 70}}
	l3 := []CornerLap{{TimeMs: 1100, MinSpeedKph: 80}}
	s := Aggregate([][]CornerLap{l1, l2, l3})[0]
	// Brake points 100 and 104: mean 102, sd 2, consistency 100 − 10 = 90.
	if s.Laps != 3 || s.BrakedLaps != 2 || s.BestMs != 1000 || !near(s.MeanMs, 1100) || !near(s.BrakePointM, 102) ||
		!near(s.BrakePointStdDevM, 2) || s.ConsistencyPct != 90 || !near(s.PeakBrake, 0.8) || !near(s.MinSpeedKph, 70) {
		t.Fatalf("%+v", s)
	}
}

func TestTrendAndConsistency(t *testing.T) {
	if TrendOf([]float64{100, 99, 98}, 0.5) != Improving || TrendOf([]float64{100, 100, 100}, 0.5) != Stable ||
		TrendOf([]float64{98, 100}, 0.5) != Declining || TrendOf([]float64{1}, 0.5) != Stable {
		t.Fatal("trend")
	}
	if got := ConsistencyPct([]float64{100, 100.5, 102, 101}); got != 75 {
		t.Fatalf("ConsistencyPct = %d, want 75", got)
	}
	if Median([]float64{3, 1, 2, 10}) != 2.5 {
		t.Fatal("median")
	}
}

func TestPlanStrategy(t *testing.T) {
	tests := []struct {
		name string
		in   StrategyInput
		want Strategy
		err  string
	}{
		{
			// 13.3 laps per tank minus 1 reserve lap = 12 per stint → 3 stints of 10.
			name: "laps", in: StrategyInput{RaceLaps: 30, LapMs: 100000, FuelPerLapL: 3, TankL: 40, ReserveLaps: 1, PitLossMs: 25000},
			want: Strategy{TotalLaps: 30, TotalFuelL: 90, MaxStintLaps: 12, Stops: 2, PitLaps: []int{10, 20},
				Stints:      []Stint{{1, 1, 10, 10, 33}, {2, 11, 20, 10, 33}, {3, 21, 30, 10, 33}},
				EstimatedMs: 3050000},
		},
		{
			// 60 min at 2:00 with one mandatory 30 s stop: floor(3570/120)+1 = 30 laps.
			name: "timed", in: StrategyInput{RaceDurationMs: 3600000, LapMs: 120000, FuelPerLapL: 3, TankL: 100, MandatoryStops: 1, PitLossMs: 30000},
			want: Strategy{TotalLaps: 30, TotalFuelL: 90, MaxStintLaps: 33, Stops: 1, PitLaps: []int{15},
				Stints:      []Stint{{1, 1, 15, 15, 45}, {2, 16, 30, 15, 45}},
				EstimatedMs: 3630000},
		},
		{
			name: "uneven stints", in: StrategyInput{RaceLaps: 25, LapMs: 90000, FuelPerLapL: 2, TankL: 120, MaxStintLaps: 12},
			want: Strategy{TotalLaps: 25, TotalFuelL: 50, MaxStintLaps: 12, Stops: 2, PitLaps: []int{9, 17},
				Stints:      []Stint{{1, 1, 9, 9, 18}, {2, 10, 17, 8, 16}, {3, 18, 25, 8, 16}},
				EstimatedMs: 2250000},
		},
		{name: "tank too small", in: StrategyInput{RaceLaps: 10, LapMs: 1, FuelPerLapL: 3, TankL: 2}, err: "does not cover one lap"},
		{name: "laps and duration", in: StrategyInput{RaceLaps: 10, RaceDurationMs: 10, LapMs: 1, FuelPerLapL: 3, TankL: 20}, err: "either"},
		{name: "too many stops", in: StrategyInput{RaceLaps: 200, LapMs: 1, FuelPerLapL: 3, TankL: 3.5}, err: "needs 199 stops"},
		{name: "stops do not fit", in: StrategyInput{RaceLaps: 3, LapMs: 1, FuelPerLapL: 3, TankL: 30, MandatoryStops: 5}, err: "do not fit"},
		{name: "no pace", in: StrategyInput{RaceLaps: 3, FuelPerLapL: 3, TankL: 30}, err: "no lap time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PlanStrategy(tt.in)
			if tt.err != "" {
				if !errors.Is(err, ErrInfeasible) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want ErrInfeasible with %q", err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, %v\nwant %+v", got, err, tt.want)
			}
		})
	}
}
