package analysis

import (
	"errors"
	"math"

	"github.com/brakinglab/codemode-go/examples/brakinglab/telemetry"
	"github.com/brakinglab/codemode-go/examples/brakinglab/tracks"
)

// ErrDifferentTracks is returned by CompareLaps for traces of different lengths.
var ErrDifferentTracks = errors.New("laps are from different tracks")

// Comparison is lap B measured against lap A. Every delta is B minus A, so a
// negative delta means B was faster.
type Comparison struct {
	AMs, BMs, DeltaMs float64
	Sectors           []SectorDelta
	Corners           []CornerDelta
}

// SectorDelta compares one sector.
type SectorDelta struct {
	Sector   int // 1, 2 or 3
	AMs, BMs float64
	DeltaMs  float64
	// CumulativeDeltaMs is B minus A at the end of the sector.
	CumulativeDeltaMs float64
}

// CornerDelta compares one corner.
type CornerDelta struct {
	CornerIndex int
	CornerName  string
	A, B        CornerLap
	DeltaMs     float64
	// CumulativeDeltaMs is B minus A at the end of the corner's range.
	CumulativeDeltaMs float64
}

// CompareLaps aligns two laps of the same track by distance and reports
// where B gained or lost time against A.
func CompareLaps(track tracks.Track, a, b telemetry.Trace) (Comparison, error) {
	if math.Abs(a.LengthM-b.LengthM) > 1 || math.Abs(a.LengthM-track.LengthM) > 1 {
		return Comparison{}, ErrDifferentTracks
	}
	c := Comparison{AMs: a.LapMs(), BMs: b.LapMs()}
	c.DeltaMs = c.BMs - c.AMs
	ca, cb := Corners(track, a), Corners(track, b)
	var cum float64
	for i, corner := range track.Corners {
		d := cb[i].TimeMs - ca[i].TimeMs
		cum += d
		c.Corners = append(c.Corners, CornerDelta{
			CornerIndex: i, CornerName: corner.Name, A: ca[i], B: cb[i], DeltaMs: d, CumulativeDeltaMs: cum,
		})
	}
	cum = 0
	for s := 0; s < 3; s++ {
		start, end := track.SectorBounds(s)
		sa, sb := a.RangeMs(start, end), b.RangeMs(start, end)
		cum += sb - sa
		c.Sectors = append(c.Sectors, SectorDelta{Sector: s + 1, AMs: sa, BMs: sb, DeltaMs: sb - sa, CumulativeDeltaMs: cum})
	}
	return c, nil
}

// SectorTimes returns the three sector times of a lap in milliseconds.
func SectorTimes(track tracks.Track, tr telemetry.Trace) [3]float64 {
	var out [3]float64
	for s := range out {
		start, end := track.SectorBounds(s)
		out[s] = tr.RangeMs(start, end)
	}
	return out
}
