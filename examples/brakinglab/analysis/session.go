package analysis

import (
	"math"
	"sort"
)

// CornerStats summarises one corner over several laps.
type CornerStats struct {
	CornerIndex int
	// Laps is how many laps were measured; BrakedLaps how many of them braked.
	Laps, BrakedLaps int
	// Corner time: best, mean and standard deviation.
	BestMs, MeanMs, StdDevMs float64
	// Means over the laps (braking figures over the braked laps only).
	EntrySpeedKph, MinSpeedKph, ExitSpeedKph   float64
	BrakePointM, ReleasePointM, PeakBrake      float64
	BrakingMs, TrailBrakeMs, BrakePointStdDevM float64
	// ConsistencyPct rates the brake point's repeatability:
	// max(0, 100 − 5 × BrakePointStdDevM), rounded; 100 without braking.
	ConsistencyPct int
}

// Aggregate summarises each corner over laps (each as returned by Corners
// for the same track). It returns nil for no laps.
func Aggregate(laps [][]CornerLap) []CornerStats {
	if len(laps) == 0 {
		return nil
	}
	out := make([]CornerStats, len(laps[0]))
	for ci := range out {
		s := CornerStats{CornerIndex: ci, Laps: len(laps), BestMs: math.Inf(1)}
		var times, points []float64
		for _, lap := range laps {
			cl := lap[ci]
			times = append(times, cl.TimeMs)
			s.BestMs = math.Min(s.BestMs, cl.TimeMs)
			s.EntrySpeedKph += cl.EntrySpeedKph
			s.MinSpeedKph += cl.MinSpeedKph
			s.ExitSpeedKph += cl.ExitSpeedKph
			if cl.Braked {
				s.BrakedLaps++
				points = append(points, cl.BrakePointM)
				s.ReleasePointM += cl.ReleasePointM
				s.PeakBrake += cl.PeakBrake
				s.BrakingMs += cl.BrakingMs
				s.TrailBrakeMs += cl.TrailBrakeMs
			}
		}
		n := float64(len(laps))
		s.EntrySpeedKph /= n
		s.MinSpeedKph /= n
		s.ExitSpeedKph /= n
		s.MeanMs, s.StdDevMs = MeanStdDev(times)
		s.ConsistencyPct = 100
		if b := float64(s.BrakedLaps); b > 0 {
			s.BrakePointM, s.BrakePointStdDevM = MeanStdDev(points)
			s.ReleasePointM /= b
			s.PeakBrake /= b
			s.BrakingMs /= b
			s.TrailBrakeMs /= b
			s.ConsistencyPct = int(math.Round(math.Max(0, 100-5*s.BrakePointStdDevM)))
		}
		out[ci] = s
	}
	return out
}

// Trend says which way a series of lap times is going.
type Trend string

// Trend values.
const (
	Improving Trend = "improving"
	Stable    Trend = "stable"
	Declining Trend = "declining"
)

// TrendOf fits a least-squares line through lap times in order and calls
// the series improving when it falls by more than thresholdMs per step,
// declining when it rises by more, and stable otherwise (also for fewer
// than two values).
func TrendOf(lapMs []float64, thresholdMs float64) Trend {
	n := float64(len(lapMs))
	if n < 2 {
		return Stable
	}
	var sx, sy, sxy, sxx float64
	for i, y := range lapMs {
		x := float64(i)
		sx, sy, sxy, sxx = sx+x, sy+y, sxy+x*y, sxx+x*x
	}
	slope := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	switch {
	case slope < -thresholdMs:
		return Improving
	case slope > thresholdMs:
		return Declining
	}
	return Stable
}

// ConsistencyPct is the share of laps, in percent rounded, within 1 % of the
// fastest of them (0 for no laps).
func ConsistencyPct(lapMs []float64) int {
	if len(lapMs) == 0 {
		return 0
	}
	best := math.Inf(1)
	for _, t := range lapMs {
		best = math.Min(best, t)
	}
	in := 0
	for _, t := range lapMs {
		if t <= best*1.01 {
			in++
		}
	}
	return int(math.Round(100 * float64(in) / float64(len(lapMs))))
}

// Median returns the median of xs (0 for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
