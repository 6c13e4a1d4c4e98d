package proc

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
)

// PipeIO carries a frame larger than the pipe's buffer intact (the writer
// waits in the poller while the pipe is full), reports io.EOF once the
// write end is closed, and an error for writes once the read end is.
func TestPipeIO(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rd, _ := PipeIO(r)
	_, wr := PipeIO(w)
	if _, ok := rd.(*rawPipe); !ok {
		t.Fatalf("PipeIO on an os.Pipe end returned %T, want the raw reader", rd)
	}
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB, past the 64 KiB pipe buffer
	errc := make(chan error, 1)
	go func() {
		n, err := wr.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		w.Close()
		errc <- err
	}()
	got, err := io.ReadAll(rd) // io.ReadAll stops at io.EOF
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, want the %d written", len(got), len(want))
	}

	r2, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	_, wr2 := PipeIO(w2)
	r2.Close()
	if _, err := wr2.Write([]byte("x")); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("write to a pipe without reader: %v, want EPIPE", err)
	}
}

// A blocking descriptor, where a raw read would hold its thread, gets the
// *os.File itself.
func TestPipeIOBlocking(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	r.Fd() // Fd puts the descriptor in blocking mode
	if rd, wr := PipeIO(r); rd != io.Reader(r) || wr != io.Writer(r) {
		t.Fatalf("PipeIO on a blocking descriptor returned %T, %T", rd, wr)
	}
}

// What a goroutine wrote before it sent a frame is seen by the goroutine
// that read the frame, as the race detector knows it through package
// syscall's Read and Write (run under -race: PipeIO's raw system calls
// must say so themselves).
func TestPipeIOOrdersMemory(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	rd, _ := PipeIO(r)
	_, wr := PipeIO(w)
	var shared int
	go func() {
		shared = 42
		_, _ = wr.Write([]byte{1})
	}()
	if _, err := io.ReadFull(rd, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	if shared != 42 {
		t.Fatalf("shared = %d after the frame, want 42", shared)
	}
}
