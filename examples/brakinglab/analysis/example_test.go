package analysis_test

import (
	"fmt"
	"testing"

	"github.com/brakinglab/codemode-go/examples/brakinglab/analysis"
	"github.com/brakinglab/codemode-go/examples/brakinglab/telemetry"
	"github.com/brakinglab/codemode-go/examples/brakinglab/tracks"
)

// Plan a one-hour race with one mandatory stop from a driver's pace and
// consumption.
func ExamplePlanStrategy() {
	s, err := analysis.PlanStrategy(analysis.StrategyInput{
		RaceDurationMs: 60 * 60 * 1000, LapMs: 139000, FuelPerLapL: 3.1,
		TankL: 120, MandatoryStops: 1, PitLossMs: 25000, ReserveLaps: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.TotalLaps, "laps,", s.Stops, "stop after lap", s.PitLaps[0], "- fuel", s.Stints[0].FuelL, "L then", s.Stints[1].FuelL, "L")

	_, err = analysis.PlanStrategy(analysis.StrategyInput{RaceLaps: 20, LapMs: 139000, FuelPerLapL: 3.1, TankL: 2})
	fmt.Println(err)
	// Output:
	// 26 laps, 1 stop after lap 13 - fuel 43.4 L then 43.4 L
	// infeasible strategy: a 2.0 L tank does not cover one lap at 3.10 L/lap plus 0.0 reserve laps
}

// spaLap is a Spa lap at 200 km/h with a braking zone before every apex.
func spaLap(t tracks.Track, late float64) telemetry.Trace {
	tr := telemetry.Make(t.LengthM, 10)
	for i := range tr.SpeedKph {
		tr.SpeedKph[i] = 200
	}
	for _, c := range t.Corners {
		apex := tr.Index(c.ApexM)
		for k := 0; k < 12; k++ {
			i := apex - 12 + k + int(late/10)
			if i >= 0 && i < tr.Len() {
				tr.Brake[i] = 0.9
				tr.SpeedKph[i] = 200 - float64(k)*10
			}
		}
	}
	return tr
}

func BenchmarkCorners(b *testing.B) {
	spa, _ := tracks.ByID("spa")
	tr := spaLap(spa, 0)
	for b.Loop() {
		analysis.Corners(spa, tr)
	}
}

// BenchmarkWeakCorners ranks Spa's corners over 100 laps of history and
// 50 recent laps, about what getWeakCorners does for five sessions.
func BenchmarkWeakCorners(b *testing.B) {
	spa, _ := tracks.ByID("spa")
	var all, recent [][]analysis.CornerLap
	for i := 0; i < 100; i++ {
		cl := analysis.Corners(spa, spaLap(spa, float64(i%3)*10))
		all = append(all, cl)
		if i < 50 {
			recent = append(recent, cl)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		analysis.WeakCorners(spa, all, recent)
	}
}
