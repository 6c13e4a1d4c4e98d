package telemetry_test

import (
	"fmt"
	"testing"

	"github.com/brakinglab/codemode-go/examples/brakinglab/telemetry"
)

// A lap is stored as eight bytes per sample; its time is the sum of the
// segment times.
func ExampleEncode() {
	tr := telemetry.Make(1000, 10) // a 1 km lap sampled every 10 m
	for i := range tr.SpeedKph {
		tr.SpeedKph[i] = 180 // 50 m/s
		tr.Throttle[i] = 1
		tr.Gear[i] = 5
	}
	b, _ := telemetry.Encode(tr)
	back, _ := telemetry.Decode(b)
	fmt.Println(len(b), "bytes,", back.Len(), "samples,", back.LapMs(), "ms")
	// Output: 816 bytes, 100 samples, 20000 ms
}

func BenchmarkDecode(b *testing.B) {
	tr := telemetry.Make(7004, 10)
	for i := range tr.SpeedKph {
		tr.SpeedKph[i] = 200
	}
	enc, _ := telemetry.Encode(tr)
	b.SetBytes(int64(len(enc)))
	for b.Loop() {
		if _, err := telemetry.Decode(enc); err != nil {
			b.Fatal(err)
		}
	}
}
