package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	frames := []Frame{
		{Type: Hello, A: []byte(`{"pid":1}`)},
		{Type: Exec, ID: 7, A: []byte(`{"limits":{}}`), B: []byte("return 1")},
		{Type: Call, ID: 1<<63 + 5, A: []byte("ns.fn"), B: []byte(`{"x":1}`)},
		{Type: Return, ID: 3},
		{Type: Done, A: bytes.Repeat([]byte("x"), 200<<10)},
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, f := range frames {
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(&buf)
	for i, want := range frames {
		got, err := r.Read()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if got.Type != want.Type || got.ID != want.ID || !bytes.Equal(got.A, want.A) || !bytes.Equal(got.B, want.B) {
			t.Fatalf("frame %d: got %v %d %q %q", i, got.Type, got.ID, got.A, got.B)
		}
	}
	if _, err := r.Read(); err != io.EOF {
		t.Fatalf("after last frame: %v, want io.EOF", err)
	}
}

func TestConcurrentWrites(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = w.Write(Frame{Type: Return, ID: uint64(i), A: []byte(strings.Repeat("a", i*100))})
		}()
	}
	wg.Wait()
	r := NewReader(&buf)
	seen := map[uint64]bool{}
	for range 50 {
		f, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		if len(f.A) != int(f.ID)*100 {
			t.Fatalf("frame %d has %d bytes: interleaved writes", f.ID, len(f.A))
		}
		seen[f.ID] = true
	}
	if len(seen) != 50 {
		t.Fatalf("saw %d distinct frames", len(seen))
	}
}

func TestBadInput(t *testing.T) {
	huge := make([]byte, 4)
	binary.BigEndian.PutUint32(huge, MaxFrame+1)
	short := make([]byte, 4)
	binary.BigEndian.PutUint32(short, 3)
	badField := make([]byte, headerLen)
	binary.BigEndian.PutUint32(badField, headerLen-4)
	binary.BigEndian.PutUint32(badField[13:], 10)
	truncated := make([]byte, headerLen)
	binary.BigEndian.PutUint32(truncated, headerLen-4+10)
	for _, tc := range []struct {
		name string
		in   []byte
		want error
	}{
		{"over MaxFrame", huge, ErrTooLarge},
		{"below header", short, nil},
		{"field beyond frame", badField, nil},
		{"cut in header", truncated[:9], io.ErrUnexpectedEOF},
		{"cut in body", truncated, io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewReader(bytes.NewReader(tc.in)).Read()
			if err == nil {
				t.Fatal("no error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	var buf bytes.Buffer
	_ = NewWriter(&buf).Write(Frame{Type: Call, A: make([]byte, 100)})
	r := NewReader(&buf)
	r.Max = 50
	if _, err := r.Read(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("frame over Reader.Max: %v", err)
	}
	if err := NewWriter(io.Discard).Write(Frame{A: make([]byte, MaxFrame)}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("writing an oversized frame: %v", err)
	}
}

func BenchmarkRoundTrip9KB(b *testing.B) {
	payload := bytes.Repeat([]byte("x"), 9<<10)
	pr, pw := io.Pipe()
	w, r := NewWriter(pw), NewReader(pr)
	go func() {
		for {
			if _, err := r.Read(); err != nil {
				return
			}
		}
	}()
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		if err := w.Write(Frame{Type: Return, ID: 1, A: payload}); err != nil {
			b.Fatal(err)
		}
	}
	pw.Close()
}

// FuzzReader feeds arbitrary bytes to the reader: it must return frames or
// errors, never panic or allocate past MaxFrame.
func FuzzReader(f *testing.F) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	_ = w.Write(Frame{Type: Call, ID: 9, A: []byte("ns.fn"), B: []byte(`{"a":1}`)})
	_ = w.Write(Frame{Type: Done})
	f.Add(buf.Bytes())
	f.Add([]byte{0, 0, 0, 13, 1, 0, 0, 0, 0, 0, 0, 0, 1, 255, 255, 255, 255})
	f.Add([]byte{255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReader(bytes.NewReader(in))
		for {
			fr, err := r.Read()
			if err != nil {
				return
			}
			if len(fr.A)+len(fr.B) > MaxFrame {
				t.Fatalf("frame of %d bytes", len(fr.A)+len(fr.B))
			}
		}
	})
}
