package telemetry

import "testing"

// FuzzDecode checks that arbitrary bytes never panic Decode and that
// whatever it accepts encodes back to the same bytes.
func FuzzDecode(f *testing.F) {
	good, _ := Encode(flat())
	f.Add(good)
	f.Add([]byte("BLT1"))
	f.Add(append([]byte("BLT1"), make([]byte, 12)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := Decode(b)
		if err != nil {
			return
		}
		again, err := Encode(tr)
		if err != nil {
			t.Fatalf("decoded trace does not encode: %v", err)
		}
		if string(again) != string(b) {
			t.Fatalf("round trip changed the bytes")
		}
	})
}
