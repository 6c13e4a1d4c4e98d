// Package telemetry holds one lap's driver inputs and car speed, sampled by
// distance, and its compact binary encoding.
//
// A Trace divides the lap into segments of StepM metres (the last one may be
// shorter); each sample is the average over its segment. Time through a
// segment is its length divided by its speed, so a lap's time is exactly the
// sum over its segments.
package telemetry

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrCorrupt is returned by Decode for data that is not an encoded trace.
var ErrCorrupt = errors.New("telemetry: corrupt trace")

// Trace is one lap of telemetry sampled every StepM metres.
type Trace struct {
	// StepM is the segment length in metres.
	StepM float64
	// LengthM is the lap length in metres.
	LengthM float64
	// SpeedKph is the car's speed in km/h.
	SpeedKph []float64
	// Throttle is the throttle pedal position from 0 to 1.
	Throttle []float64
	// Brake is the brake pressure from 0 to 1.
	Brake []float64
	// Gear is the selected gear (0 = neutral).
	Gear []int
	// Steering is the steering input from -1 (full left) to 1 (full right).
	Steering []float64
}

// Segments returns how many segments a lap of lengthM has at stepM.
func Segments(lengthM, stepM float64) int {
	return int(math.Ceil(lengthM/stepM - 1e-9))
}

// Make returns a zeroed trace for a lap of lengthM sampled every stepM.
func Make(lengthM, stepM float64) Trace {
	n := Segments(lengthM, stepM)
	return Trace{
		StepM: stepM, LengthM: lengthM,
		SpeedKph: make([]float64, n), Throttle: make([]float64, n), Brake: make([]float64, n),
		Gear: make([]int, n), Steering: make([]float64, n),
	}
}

// Len returns the number of segments.
func (t Trace) Len() int { return len(t.SpeedKph) }

// StartM returns the distance at which segment i starts.
func (t Trace) StartM(i int) float64 { return float64(i) * t.StepM }

// MidM returns the distance of the middle of segment i.
func (t Trace) MidM(i int) float64 { return t.StartM(i) + t.SegmentLenM(i)/2 }

// SegmentLenM returns the length of segment i in metres.
func (t Trace) SegmentLenM(i int) float64 {
	return math.Min(t.StepM, t.LengthM-t.StartM(i))
}

// SegmentMs returns the time spent in segment i in milliseconds.
func (t Trace) SegmentMs(i int) float64 {
	v := t.SpeedKph[i] / 3.6
	if v <= 0 {
		return math.Inf(1)
	}
	return t.SegmentLenM(i) / v * 1000
}

// LapMs returns the lap time in milliseconds.
func (t Trace) LapMs() float64 { return t.RangeMs(0, t.LengthM) }

// RangeMs returns the time spent between startM and endM in milliseconds,
// counting partial segments in proportion to the distance covered.
func (t Trace) RangeMs(startM, endM float64) float64 {
	var ms float64
	for i := t.Index(startM); i < t.Len(); i++ {
		s, e := t.StartM(i), t.StartM(i)+t.SegmentLenM(i)
		if s >= endM {
			break
		}
		overlap := math.Min(e, endM) - math.Max(s, startM)
		if overlap > 0 {
			ms += t.SegmentMs(i) * overlap / t.SegmentLenM(i)
		}
	}
	return ms
}

// Index returns the segment containing distance m, clamped to the lap.
func (t Trace) Index(m float64) int {
	i := int(m / t.StepM)
	if i < 0 {
		return 0
	}
	if i >= t.Len() {
		return t.Len() - 1
	}
	return i
}

// Validate checks that the channels have one value per segment and that
// every value is in range.
func (t Trace) Validate() error {
	if !(t.StepM > 0) || !(t.LengthM > 0) {
		return fmt.Errorf("telemetry: step %v and length %v must be positive", t.StepM, t.LengthM)
	}
	n := Segments(t.LengthM, t.StepM)
	if len(t.SpeedKph) != n || len(t.Throttle) != n || len(t.Brake) != n || len(t.Gear) != n || len(t.Steering) != n {
		return fmt.Errorf("telemetry: every channel needs %d samples", n)
	}
	for i := 0; i < n; i++ {
		switch {
		case !(t.SpeedKph[i] > 0) || t.SpeedKph[i] > 500:
			return fmt.Errorf("telemetry: speed %v at sample %d out of range", t.SpeedKph[i], i)
		case t.Throttle[i] < 0 || t.Throttle[i] > 1, t.Brake[i] < 0 || t.Brake[i] > 1:
			return fmt.Errorf("telemetry: pedal out of range at sample %d", i)
		case t.Steering[i] < -1 || t.Steering[i] > 1:
			return fmt.Errorf("telemetry: steering out of range at sample %d", i)
		case t.Gear[i] < -1 || t.Gear[i] > 10:
			return fmt.Errorf("telemetry: gear out of range at sample %d", i)
		}
	}
	return nil
}

// Resample returns the trace averaged into segments of stepM metres, which
// must be a whole multiple of t.StepM. Speed is averaged so that the time
// through each new segment is unchanged; other channels are distance
// weighted means, and gear is the gear at the segment's end.
func (t Trace) Resample(stepM float64) (Trace, error) {
	k := stepM / t.StepM
	if k < 1 || math.Abs(k-math.Round(k)) > 1e-9 {
		return Trace{}, fmt.Errorf("telemetry: resolution %v m must be a multiple of %v m", stepM, t.StepM)
	}
	out := Make(t.LengthM, stepM)
	for j := 0; j < out.Len(); j++ {
		s, e := out.StartM(j), out.StartM(j)+out.SegmentLenM(j)
		var dist, ms, thr, brk, str float64
		gear := 0
		for i := t.Index(s); i < t.Len() && t.StartM(i) < e-1e-9; i++ {
			d := t.SegmentLenM(i)
			dist += d
			ms += t.SegmentMs(i)
			thr += t.Throttle[i] * d
			brk += t.Brake[i] * d
			str += t.Steering[i] * d
			gear = t.Gear[i]
		}
		out.SpeedKph[j] = dist / ms * 3600
		out.Throttle[j], out.Brake[j], out.Steering[j], out.Gear[j] = thr/dist, brk/dist, str/dist, gear
	}
	return out, nil
}

// Encoded layout, all little endian:
//
//	magic "BLT1" | stepM float32 | lengthM float32 | n uint32 |
//	speed n×float32 (km/h) | throttle n×uint8 (/255) | brake n×uint8 (/255) |
//	gear n×int8 | steering n×int8 (/127)
//
// Eight bytes per sample: a 7 km lap at 10 m is 5.6 KB.
var magic = [4]byte{'B', 'L', 'T', '1'}

const headerLen = 16

// Encode packs the trace into its binary form. Values are quantised: pedals
// to 1/255, steering to 1/127, speed to float32.
func Encode(t Trace) ([]byte, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	n := t.Len()
	b := make([]byte, headerLen+8*n)
	copy(b, magic[:])
	binary.LittleEndian.PutUint32(b[4:], math.Float32bits(float32(t.StepM)))
	binary.LittleEndian.PutUint32(b[8:], math.Float32bits(float32(t.LengthM)))
	binary.LittleEndian.PutUint32(b[12:], uint32(n))
	p := headerLen
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(b[p+4*i:], math.Float32bits(float32(t.SpeedKph[i])))
	}
	p += 4 * n
	for i := 0; i < n; i++ {
		b[p+i] = uint8(math.Round(t.Throttle[i] * 255))
		b[p+n+i] = uint8(math.Round(t.Brake[i] * 255))
		b[p+2*n+i] = uint8(int8(t.Gear[i]))
		b[p+3*n+i] = uint8(int8(math.Round(t.Steering[i] * 127)))
	}
	return b, nil
}

// Decode unpacks a trace written by Encode.
func Decode(b []byte) (Trace, error) {
	if len(b) < headerLen || [4]byte(b[:4]) != magic {
		return Trace{}, ErrCorrupt
	}
	step := float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4:])))
	length := float64(math.Float32frombits(binary.LittleEndian.Uint32(b[8:])))
	n := int(binary.LittleEndian.Uint32(b[12:]))
	if !(step > 0) || !(length > 0) || n != Segments(length, step) || len(b) != headerLen+8*n {
		return Trace{}, ErrCorrupt
	}
	t := Make(length, step)
	p := headerLen
	for i := 0; i < n; i++ {
		t.SpeedKph[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[p+4*i:])))
	}
	p += 4 * n
	for i := 0; i < n; i++ {
		t.Throttle[i] = float64(b[p+i]) / 255
		t.Brake[i] = float64(b[p+n+i]) / 255
		t.Gear[i] = int(int8(b[p+2*n+i]))
		t.Steering[i] = float64(int8(b[p+3*n+i])) / 127
	}
	if err := t.Validate(); err != nil {
		return Trace{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return t, nil
}
