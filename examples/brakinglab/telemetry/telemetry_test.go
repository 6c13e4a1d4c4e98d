package telemetry

import (
	"errors"
	"math"
	"testing"
)

// flat returns a 1000 m trace at 10 m with constant speed 72 km/h (20 m/s).
func flat() Trace {
	t := Make(1005, 10)
	for i := range t.SpeedKph {
		t.SpeedKph[i] = 72
		t.Throttle[i] = 0.5
		t.Brake[i] = float64(i%3) / 3
		t.Gear[i] = 3
		t.Steering[i] = -0.25
	}
	return t
}

func TestTimes(t *testing.T) {
	tr := flat()
	if tr.Len() != 101 || tr.SegmentLenM(100) != 5 {
		t.Fatalf("len %d last %v", tr.Len(), tr.SegmentLenM(100))
	}
	// 1005 m at 20 m/s = 50.25 s.
	if got := tr.LapMs(); math.Abs(got-50250) > 1e-6 {
		t.Fatalf("LapMs = %v, want 50250", got)
	}
	// 15 m to 40 m is 25 m: 1.25 s, including two partial segments.
	if got := tr.RangeMs(15, 40); math.Abs(got-1250) > 1e-6 {
		t.Fatalf("RangeMs = %v, want 1250", got)
	}
}

func TestRoundTrip(t *testing.T) {
	tr := flat()
	b, err := Encode(tr)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 16+8*101 {
		t.Fatalf("encoded %d bytes", len(b))
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tr.SpeedKph {
		if got.SpeedKph[i] != tr.SpeedKph[i] || got.Gear[i] != tr.Gear[i] ||
			math.Abs(got.Brake[i]-tr.Brake[i]) > 1.0/255 || math.Abs(got.Steering[i]-tr.Steering[i]) > 1.0/127 {
			t.Fatalf("sample %d differs: %+v", i, got)
		}
	}
	for _, bad := range [][]byte{nil, []byte("BLT1"), b[:len(b)-1], append([]byte("XXXX"), b[4:]...)} {
		if _, err := Decode(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Decode(%d bytes) error = %v, want ErrCorrupt", len(bad), err)
		}
	}
}

func TestResample(t *testing.T) {
	tr := Make(40, 10)
	copy(tr.SpeedKph, []float64{36, 72, 36, 72}) // 10 m/s and 20 m/s
	for i := range tr.Throttle {
		tr.Throttle[i] = float64(i) / 4
		tr.Gear[i] = i + 1
	}
	r, err := tr.Resample(20)
	if err != nil {
		t.Fatal(err)
	}
	// 20 m in 1 s + 0.5 s = 13.33 m/s = 48 km/h; the time is preserved.
	if r.Len() != 2 || math.Abs(r.SpeedKph[0]-48) > 1e-9 || math.Abs(r.LapMs()-tr.LapMs()) > 1e-9 {
		t.Fatalf("resampled %+v", r)
	}
	if r.Throttle[1] != 0.625 || r.Gear[1] != 4 {
		t.Fatalf("throttle %v gear %v", r.Throttle[1], r.Gear[1])
	}
	if _, err := tr.Resample(15); err == nil {
		t.Fatal("Resample(15) accepted a step that is not a multiple")
	}
}
