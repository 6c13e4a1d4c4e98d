// Package analysis turns lap telemetry into coaching facts: per-corner
// times and speeds, braking zones, weak corners, lap comparisons, progress
// trends and race strategies. Every function is pure: it reads traces and
// track data and returns values, so it is tested on small synthetic traces.
package analysis

import (
	"math"

	"github.com/brakinglab/codemode-go/examples/brakinglab/telemetry"
	"github.com/brakinglab/codemode-go/examples/brakinglab/tracks"
)

// Thresholds used to read the pedals and the wheel.
const (
	// BrakeOn is the brake pressure at which a braking zone starts.
	BrakeOn = 0.10
	// BrakeOff is the brake pressure below which the brake counts as released.
	BrakeOff = 0.05
	// SteeringOn is the steering input above which the car counts as turning.
	SteeringOn = 0.10
	// ExitDistanceM is how far after the apex the exit speed is read.
	ExitDistanceM = 150
)

// CornerLap is what one lap did in one corner. Distances are from the
// start/finish line in metres; the corner's range is tracks.Track.CornerBounds.
type CornerLap struct {
	CornerIndex int
	// TimeMs is the time spent in the corner's range.
	TimeMs float64
	// EntrySpeedKph is the speed at the brake point, or at the start of the
	// range for a corner taken without braking.
	EntrySpeedKph float64
	// MinSpeedKph is the lowest speed in the range and MinSpeedAtM where it was.
	MinSpeedKph, MinSpeedAtM float64
	// ExitSpeedKph is the speed ExitDistanceM after the apex (or at the end
	// of the range if that comes first).
	ExitSpeedKph float64
	// Braked reports whether the brake reached BrakeOn before the apex.
	Braked bool
	// BrakePointM is where the brake first reached BrakeOn.
	BrakePointM float64
	// PeakBrake is the highest brake pressure in the braking zone.
	PeakBrake float64
	// ReleasePointM is where the brake fell below BrakeOff again.
	ReleasePointM float64
	// BrakingMs is the time from brake point to release.
	BrakingMs float64
	// TrailBrakeMs is the part of BrakingMs spent turning (|steering| ≥ SteeringOn).
	TrailBrakeMs float64
}

// Corners measures every corner of the track on one lap. The trace must be
// of the same track (same length).
func Corners(track tracks.Track, tr telemetry.Trace) []CornerLap {
	out := make([]CornerLap, len(track.Corners))
	for ci, c := range track.Corners {
		start, end := track.CornerBounds(ci)
		cl := CornerLap{CornerIndex: ci, TimeMs: tr.RangeMs(start, end), MinSpeedKph: math.Inf(1)}
		first, last := tr.Index(start), tr.Index(end-1e-6)
		for i := first; i <= last; i++ {
			if tr.SpeedKph[i] < cl.MinSpeedKph {
				cl.MinSpeedKph, cl.MinSpeedAtM = tr.SpeedKph[i], tr.MidM(i)
			}
		}
		cl.EntrySpeedKph = tr.SpeedKph[first]
		cl.ExitSpeedKph = tr.SpeedKph[tr.Index(math.Min(c.ApexM+ExitDistanceM, end-1e-6))]

		// The braking zone is the first run of brake ≥ BrakeOn that starts
		// before the apex; it lasts until the brake drops below BrakeOff.
		apex := tr.Index(c.ApexM)
		for i := first; i <= apex; i++ {
			if tr.Brake[i] < BrakeOn {
				continue
			}
			cl.Braked = true
			cl.BrakePointM = crossing(tr, i, BrakeOn)
			cl.EntrySpeedKph = tr.SpeedKph[i]
			j := i
			for ; j <= last && tr.Brake[j] >= BrakeOff; j++ {
				ms := tr.SegmentMs(j)
				cl.BrakingMs += ms
				if math.Abs(tr.Steering[j]) >= SteeringOn {
					cl.TrailBrakeMs += ms
				}
				cl.PeakBrake = math.Max(cl.PeakBrake, tr.Brake[j])
			}
			cl.ReleasePointM = tr.StartM(j)
			if j <= last {
				cl.ReleasePointM = crossing(tr, j, BrakeOff)
			}
			break
		}
		out[ci] = cl
	}
	return out
}

// crossing estimates where the brake crossed level between the middles of
// segments i-1 and i (linear interpolation), so brake points are not
// quantised to the sampling step. Segment i is the first on the other side.
func crossing(tr telemetry.Trace, i int, level float64) float64 {
	if i == 0 {
		return tr.StartM(0)
	}
	b0, b1 := tr.Brake[i-1], tr.Brake[i]
	if b0 == b1 {
		return tr.StartM(i)
	}
	f := (level - b0) / (b1 - b0)
	return tr.MidM(i-1) + f*(tr.MidM(i)-tr.MidM(i-1))
}
