package analysis

import (
	"math"
	"sort"

	"github.com/brakinglab/codemode-go/examples/brakinglab/tracks"
)

// Issue is the main reason a corner costs time.
type Issue string

// The fixed set of corner issues.
const (
	LateBraking       Issue = "late_braking"
	EarlyBraking      Issue = "early_braking"
	OverSlowing       Issue = "over_slowing"
	PoorExit          Issue = "poor_exit"
	Inconsistent      Issue = "inconsistent"
	TrailBrakeRelease Issue = "trail_brake_release"
)

// Issues lists every Issue value, in the order used to break ties.
var Issues = []Issue{LateBraking, EarlyBraking, OverSlowing, PoorExit, TrailBrakeRelease, Inconsistent}

// Score weights: a corner reaches 100 when it loses LostFullMs on average
// and varies by SpreadFullMs from lap to lap.
const (
	LostFullMs   = 400.0
	SpreadFullMs = 250.0
)

// Weakness is how much one corner costs a driver and why.
type Weakness struct {
	CornerIndex int
	CornerName  string
	// Score is 0–100: 70 % from TimeLostMs (full at LostFullMs) and 30 % from
	// StdDevMs (full at SpreadFullMs).
	Score int
	// TopIssue is the issue with the largest normalised symptom (see Diagnose).
	TopIssue Issue
	// TimeLostMs is the mean corner time of the recent laps minus the
	// driver's best time in that corner.
	TimeLostMs float64
	// StdDevMs is the standard deviation of the recent laps' corner times.
	StdDevMs float64
	// BestMs is the driver's best time in the corner.
	BestMs float64
	// Laps is how many recent laps were measured.
	Laps int
	// Deltas are the recent laps' mean differences from the best lap in
	// this corner (positive brake point = braking later).
	BrakePointDeltaM, MinSpeedDeltaKph, ExitSpeedDeltaKph, TrailBrakeDeltaMs float64
}

// WeakCorners ranks the track's corners by weakness. history holds every
// lap (as measured by Corners) the driver's best per corner is taken from
// (the best time, and the other metrics of the fastest tenth of the laps);
// recent holds the laps being judged, usually those of the last few
// sessions (they may also appear in history). The result is sorted by
// Score, then TimeLostMs, highest first; it is empty when recent is.
func WeakCorners(track tracks.Track, history, recent [][]CornerLap) []Weakness {
	if len(recent) == 0 {
		return nil
	}
	out := make([]Weakness, 0, len(track.Corners))
	all := append(append([][]CornerLap{}, history...), recent...)
	for ci, c := range track.Corners {
		ref := reference(all, ci)
		w := Weakness{CornerIndex: ci, CornerName: c.Name, BestMs: ref.TimeMs, Laps: len(recent)}
		times := make([]float64, len(recent))
		for i, lap := range recent {
			cl := lap[ci]
			times[i] = cl.TimeMs
			w.MinSpeedDeltaKph += cl.MinSpeedKph - ref.MinSpeedKph
			w.ExitSpeedDeltaKph += cl.ExitSpeedKph - ref.ExitSpeedKph
			if cl.Braked && ref.Braked {
				w.BrakePointDeltaM += cl.BrakePointM - ref.BrakePointM
				w.TrailBrakeDeltaMs += cl.TrailBrakeMs - ref.TrailBrakeMs
			}
		}
		n := float64(len(recent))
		w.BrakePointDeltaM /= n
		w.MinSpeedDeltaKph /= n
		w.ExitSpeedDeltaKph /= n
		w.TrailBrakeDeltaMs /= n
		mean, sd := MeanStdDev(times)
		w.TimeLostMs = math.Max(0, mean-ref.TimeMs)
		w.StdDevMs = sd
		score := 0.7*math.Min(1, w.TimeLostMs/LostFullMs) + 0.3*math.Min(1, w.StdDevMs/SpreadFullMs)
		w.Score = int(math.Round(100 * score))
		w.TopIssue = Diagnose(w)
		out = append(out, w)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].TimeLostMs > out[j].TimeLostMs
	})
	return out
}

// reference is what the driver does on their best passes through corner
// ci: the best time, and the other metrics averaged over the fastest tenth
// of the laps (at least one) so one lucky lap does not set the standard.
func reference(laps [][]CornerLap, ci int) CornerLap {
	sorted := make([]CornerLap, len(laps))
	for i, l := range laps {
		sorted[i] = l[ci]
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].TimeMs < sorted[j].TimeMs })
	top := sorted[:max(1, len(sorted)/10)]
	ref := CornerLap{CornerIndex: ci, TimeMs: top[0].TimeMs, Braked: true}
	braked := 0
	for _, cl := range top {
		ref.MinSpeedKph += cl.MinSpeedKph / float64(len(top))
		ref.ExitSpeedKph += cl.ExitSpeedKph / float64(len(top))
		if cl.Braked {
			braked++
			ref.BrakePointM += cl.BrakePointM
			ref.TrailBrakeMs += cl.TrailBrakeMs
		}
	}
	if braked == 0 {
		ref.Braked = false
	} else {
		ref.BrakePointM /= float64(braked)
		ref.TrailBrakeMs /= float64(braked)
	}
	return ref
}

// Diagnose picks the issue whose symptom is largest after normalising each
// to a "clearly there" size:
//
//	late_braking        brake point 8 m later than best, with a lower minimum speed
//	early_braking       brake point 8 m earlier than best
//	over_slowing        minimum speed 3 km/h lower than best
//	poor_exit           exit speed 3 km/h lower than best beyond what the minimum explains
//	trail_brake_release 80 ms less trail braking than best
//	inconsistent        corner time spread of 150 ms
//
// Ties go to the earlier in Issues; with no symptom at all the answer is
// inconsistent (small random losses are all that is left).
func Diagnose(w Weakness) Issue {
	late := 0.0
	if w.MinSpeedDeltaKph < 0 {
		late = math.Max(0, w.BrakePointDeltaM) / 8
	}
	symptoms := map[Issue]float64{
		LateBraking:       late,
		EarlyBraking:      math.Max(0, -w.BrakePointDeltaM) / 8,
		OverSlowing:       math.Max(0, -w.MinSpeedDeltaKph) / 3,
		PoorExit:          math.Max(0, w.MinSpeedDeltaKph-w.ExitSpeedDeltaKph) / 3,
		TrailBrakeRelease: math.Max(0, -w.TrailBrakeDeltaMs) / 80,
		Inconsistent:      w.StdDevMs / 150,
	}
	best := Issues[0]
	for _, is := range Issues[1:] {
		if symptoms[is] > symptoms[best] {
			best = is
		}
	}
	if symptoms[best] == 0 {
		return Inconsistent
	}
	return best
}

// MeanStdDev returns the mean and population standard deviation of xs
// (both 0 for an empty slice).
func MeanStdDev(xs []float64) (mean, sd float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)))
}
