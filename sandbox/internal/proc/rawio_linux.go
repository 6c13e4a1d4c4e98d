package proc

import (
	"io"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// PipeIO returns a reader and writer on f, a non-blocking pipe end the
// runtime's poller watches, whose reads and writes skip the runtime's
// system-call bookkeeping: syscall.RawSyscall instead of the
// entersyscall/exitsyscall pair os.File pays. A worker's protocol is a
// ping-pong in which each side goes idle between frames, and then every
// entersyscall wakes the runtime's sysmon thread, which spins in 20 µs
// sleeps until it notices the process idle again: measured on the
// coaching script, sysmon and its wake-ups were a fifth of the parent's
// CPU. A non-blocking read or write of a pipe returns at once, so it
// never needs to hand its P to another thread; when the pipe is empty
// (or full) the goroutine parks in the poller as os.File's would.
//
// When f is blocking or not pollable, where a raw read would hold a
// thread and its P for as long as it blocks, PipeIO returns f itself.
// The reader is for one goroutine at a time, as is the writer.
func PipeIO(f *os.File) (io.Reader, io.Writer) {
	rc, err := f.SyscallConn()
	if err != nil || f.SetDeadline(time.Time{}) != nil { // not pollable
		return f, f
	}
	nonblocking := false
	if cerr := rc.Control(func(fd uintptr) {
		fl, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		nonblocking = e == 0 && fl&syscall.O_NONBLOCK != 0
	}); cerr != nil || !nonblocking {
		return f, f
	}
	r := &rawPipe{f: f, rc: rc, trap: syscall.SYS_READ}
	r.fn = r.do
	w := &rawPipe{f: f, rc: rc, trap: syscall.SYS_WRITE}
	w.fn = w.do
	return r, w
}

// rawPipe is one direction of PipeIO: trap is SYS_READ or SYS_WRITE. fn
// is p.do, bound once so that a read or write allocates no closure.
type rawPipe struct {
	f    *os.File
	rc   syscall.RawConn
	trap uintptr
	fn   func(fd uintptr) bool
	buf  []byte
	n    int
	err  syscall.Errno
}

// do is the RawConn callback: it reports false, to wait for the poller,
// only when the pipe is empty (a read) or full (a write).
func (p *rawPipe) do(fd uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall(p.trap, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p.buf))), uintptr(len(p.buf)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		case 0:
			p.n, p.err = int(n), 0
		default:
			p.n, p.err = 0, e
		}
		return true
	}
}

// Read reads once, as os.File.Read does: io.EOF at the end of the pipe.
func (p *rawPipe) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	p.buf = b
	err := p.rc.Read(p.fn)
	p.buf = nil
	if err != nil {
		return 0, &os.PathError{Op: "read", Path: p.f.Name(), Err: err}
	}
	if p.err != 0 {
		return 0, &os.PathError{Op: "read", Path: p.f.Name(), Err: p.err}
	}
	if p.n == 0 {
		return 0, io.EOF
	}
	afterRead()
	return p.n, nil
}

// Write writes all of b, waiting in the poller while the pipe is full.
func (p *rawPipe) Write(b []byte) (int, error) {
	beforeWrite()
	done := 0
	for done < len(b) {
		p.buf = b[done:]
		err := p.rc.Write(p.fn)
		p.buf = nil
		if err == nil && p.err != 0 {
			err = p.err
		}
		if err != nil {
			return done, &os.PathError{Op: "write", Path: p.f.Name(), Err: err}
		}
		done += p.n
	}
	return done, nil
}
