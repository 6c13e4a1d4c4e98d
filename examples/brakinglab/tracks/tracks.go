// Package tracks holds the reference data for the circuits BrakingLab knows:
// lengths, sector boundaries and named corners with their distance from the
// start/finish line. The data is static and shared by the store, the demo
// generator and the analysis.
package tracks

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrNoMatch is returned by Match when no track matches the given name.
var ErrNoMatch = errors.New("no track matches")

// ErrAmbiguous is returned by Match when a name matches more than one track.
var ErrAmbiguous = errors.New("track name is ambiguous")

// Direction is the way a corner turns.
type Direction string

// Corner directions.
const (
	Left  Direction = "left"
	Right Direction = "right"
)

// Corner is one named corner of a track.
type Corner struct {
	// Index is the corner's position in lap order, starting at 0.
	Index int
	// Name is the corner's usual name, e.g. "La Source".
	Name string
	// ApexM is the distance of the apex from the start/finish line in metres.
	ApexM float64
	// Direction is the way the corner turns.
	Direction Direction
	// ApexSpeedKph is a typical apex speed for a GT3 car. The demo generator
	// uses it; the analysis never does (it derives speeds from telemetry).
	ApexSpeedKph float64
}

// Track is one circuit layout.
type Track struct {
	// ID is a stable short identifier, e.g. "spa".
	ID string
	// Name is the full name, e.g. "Spa-Francorchamps".
	Name string
	// Aliases are short names a person would type, e.g. "Spa".
	Aliases []string
	// Country is where the track is.
	Country string
	// LengthM is the lap length in metres.
	LengthM float64
	// SectorEndsM are the distances at which sectors 1 and 2 end; sector 3
	// ends at LengthM.
	SectorEndsM [2]float64
	// ReferenceLapMs is a typical good GT3 lap time, used by the demo
	// generator to calibrate speeds.
	ReferenceLapMs int
	// Corners are in lap order.
	Corners []Corner
}

// CornerBounds returns the distance range [start, end) the analysis assigns
// to corner i: from the midpoint between the previous apex and this apex to
// the midpoint between this apex and the next. The first corner starts at 0
// and the last ends at LengthM, so the corners partition the lap and their
// times add up to the lap time.
func (t Track) CornerBounds(i int) (start, end float64) {
	if i > 0 {
		start = (t.Corners[i-1].ApexM + t.Corners[i].ApexM) / 2
	}
	end = t.LengthM
	if i < len(t.Corners)-1 {
		end = (t.Corners[i].ApexM + t.Corners[i+1].ApexM) / 2
	}
	return start, end
}

// SectorBounds returns the distance range [start, end) of sector s (0, 1 or 2).
func (t Track) SectorBounds(s int) (start, end float64) {
	switch s {
	case 0:
		return 0, t.SectorEndsM[0]
	case 1:
		return t.SectorEndsM[0], t.SectorEndsM[1]
	default:
		return t.SectorEndsM[1], t.LengthM
	}
}

// All returns every known track, sorted by name. The slice is a copy.
func All() []Track {
	out := make([]Track, len(all))
	copy(out, all)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ByID returns the track with the given ID.
func ByID(id string) (Track, bool) {
	for _, t := range all {
		if t.ID == id {
			return t, true
		}
	}
	return Track{}, false
}

// Match finds a track by what a person or model typed. Matching is
// case-insensitive and ignores spaces, hyphens and accents on the letters
// used by the known tracks. In order:
//  1. an exact match on ID, name or an alias;
//  2. otherwise, the query is a substring of exactly one track's name or
//     aliases (so "Spa" and "francorchamps" both find Spa-Francorchamps).
//
// No match gives ErrNoMatch; several substring matches give ErrAmbiguous.
func Match(query string) (Track, error) {
	q := fold(query)
	if q == "" {
		return Track{}, fmt.Errorf("%w %q", ErrNoMatch, query)
	}
	for _, t := range all {
		for _, n := range names(t) {
			if fold(n) == q {
				return t, nil
			}
		}
	}
	var found []Track
	for _, t := range all {
		for _, n := range names(t) {
			if strings.Contains(fold(n), q) {
				found = append(found, t)
				break
			}
		}
	}
	switch len(found) {
	case 0:
		return Track{}, fmt.Errorf("%w %q", ErrNoMatch, query)
	case 1:
		return found[0], nil
	default:
		ids := make([]string, len(found))
		for i, t := range found {
			ids[i] = t.Name
		}
		return Track{}, fmt.Errorf("%w: %q matches %s", ErrAmbiguous, query, strings.Join(ids, ", "))
	}
}

// Names returns the full names of all tracks, sorted, for error messages.
func Names() []string {
	var out []string
	for _, t := range All() {
		out = append(out, t.Name)
	}
	return out
}

func names(t Track) []string {
	return append([]string{t.ID, t.Name}, t.Aliases...)
}

var folder = strings.NewReplacer(" ", "", "-", "", "_", "", "'", "", "ü", "u", "Ü", "u", "é", "e", "ö", "o")

func fold(s string) string {
	return folder.Replace(strings.ToLower(strings.TrimSpace(s)))
}
