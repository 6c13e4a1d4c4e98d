// Package logtest holds what tests in several packages and modules of
// this repository need to read what a server logged: [Buffer], a log
// destination its goroutines may share while the test reads it. It was
// copied into seven test files (codemode, health, mcpsource, the gateway,
// BrakingLab's authserver, e2e and main package) before it came here.
// The example modules may import it because Go allows an internal
// package to be imported from any path below its parent.
//
// The package uses the standard library only, so the root module gains
// no dependency from it.
package logtest

import (
	"bytes"
	"log/slog"
	"sync"
)

// Buffer is a bytes.Buffer safe for concurrent writers and readers. The
// zero value is an empty buffer ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what has been written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Logger returns a logger that writes text records at level and above to
// a new Buffer, and that Buffer.
func Logger(level slog.Level) (*slog.Logger, *Buffer) {
	b := new(Buffer)
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: level})), b
}
