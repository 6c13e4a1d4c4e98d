// Package wire is the framed protocol between a sandbox parent and its
// worker processes.
//
// A frame is a fixed 17-byte header followed by two byte fields:
//
//	uint32 length of everything after this field (big endian)
//	uint8  type
//	uint64 id
//	uint32 length of A
//	A, then B (the rest)
//
// Two raw fields let JSON produced by one side (a host result, a script's
// call arguments, the script source) travel without being re-encoded or
// re-validated on the way: the payload that costs time is copied, never
// parsed, by the protocol itself.
package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Type says what a frame carries and which way it travels.
type Type uint8

// Frame types. "→ worker" frames are written by the parent.
const (
	// Setup (→ worker, first frame): A is the worker's JSON settings.
	Setup Type = iota + 1
	// Hello (worker → parent, answers Setup): A is the worker's JSON hello.
	Hello
	// Exec (→ worker): A is the JSON request, B the program source.
	Exec
	// Call (worker → parent): ID is the call id, A the function name,
	// B the JSON arguments.
	Call
	// Return (→ worker): ID is the call id, A the JSON result, B the JSON
	// error object (empty on success).
	Return
	// Cancel (→ worker): stop the running execution; a Done follows.
	Cancel
	// Done (worker → parent): A is the JSON outcome of the execution.
	Done
	// Started (worker → parent): the Exec frame arrived and the execution
	// begins; a worker that dies before sending it ran nothing.
	Started
	// Warn (→ worker): ID is a pending call's id, A one warning the host
	// attached to it; sent before the call's Return frame.
	Warn
	// CancelCall (worker → parent): ID is a pending call's id; cancel the
	// host call's context. Its Return frame still follows.
	CancelCall
)

// String returns the frame type's name, for logs.
func (t Type) String() string {
	switch t {
	case Setup:
		return "setup"
	case Hello:
		return "hello"
	case Exec:
		return "exec"
	case Call:
		return "call"
	case Return:
		return "return"
	case Cancel:
		return "cancel"
	case Done:
		return "done"
	case Started:
		return "started"
	case Warn:
		return "warn"
	case CancelCall:
		return "cancel-call"
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// MaxFrame is the largest frame either side accepts. It bounds what a
// misbehaving peer can make the reader allocate.
const MaxFrame = 16 << 20

const headerLen = 4 + 1 + 8 + 4

// ErrTooLarge is returned for a frame over MaxFrame, read or written.
var ErrTooLarge = errors.New("wire: frame too large")

// Frame is one message.
type Frame struct {
	Type Type
	ID   uint64
	A, B []byte
}

// Writer writes frames; it is safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	w   *bufio.Writer
	hdr [headerLen]byte
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 64<<10)}
}

// Write writes and flushes one frame.
func (w *Writer) Write(f Frame) error {
	n := headerLen - 4 + len(f.A) + len(f.B)
	if n > MaxFrame {
		return ErrTooLarge
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	h := w.hdr[:]
	binary.BigEndian.PutUint32(h[0:], uint32(n))
	h[4] = byte(f.Type)
	binary.BigEndian.PutUint64(h[5:], f.ID)
	binary.BigEndian.PutUint32(h[13:], uint32(len(f.A)))
	if _, err := w.w.Write(h); err != nil {
		return err
	}
	if _, err := w.w.Write(f.A); err != nil {
		return err
	}
	if _, err := w.w.Write(f.B); err != nil {
		return err
	}
	return w.w.Flush()
}

// Reader reads frames; it is not safe for concurrent use.
type Reader struct {
	// Max is the largest frame this reader accepts; zero means MaxFrame.
	// A parent sets it lower than MaxFrame to bound what a worker can make
	// it allocate.
	Max int

	r   *bufio.Reader
	hdr [headerLen]byte
}

// NewReader returns a Reader on r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Read reads one frame. A and B of the returned frame are freshly
// allocated and owned by the caller. It returns io.EOF at a clean end of
// stream and io.ErrUnexpectedEOF inside a frame.
func (r *Reader) Read() (Frame, error) {
	h := r.hdr[:]
	if _, err := io.ReadFull(r.r, h[:4]); err != nil {
		return Frame{}, err
	}
	n := binary.BigEndian.Uint32(h[0:])
	max := r.Max
	if max <= 0 || max > MaxFrame {
		max = MaxFrame
	}
	if n > uint32(max) {
		return Frame{}, ErrTooLarge
	}
	if n < headerLen-4 {
		return Frame{}, fmt.Errorf("wire: frame length %d below header size", n)
	}
	if _, err := io.ReadFull(r.r, h[4:]); err != nil {
		return Frame{}, noEOF(err)
	}
	f := Frame{Type: Type(h[4]), ID: binary.BigEndian.Uint64(h[5:])}
	la := binary.BigEndian.Uint32(h[13:])
	body := n - (headerLen - 4)
	if la > body {
		return Frame{}, fmt.Errorf("wire: field length %d beyond frame length %d", la, body)
	}
	buf := make([]byte, body)
	if _, err := io.ReadFull(r.r, buf); err != nil {
		return Frame{}, noEOF(err)
	}
	f.A, f.B = buf[:la:la], buf[la:]
	return f, nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
