//go:build unix

package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// ProtocolOut moves the protocol pipe off file descriptor 1 and points
// descriptor 1 at stderr, so nothing in the worker that writes to standard
// output (fmt.Print, a C library) can corrupt the protocol.
func ProtocolOut() *os.File {
	fd, err := unix.Dup(1)
	if err != nil {
		return os.Stdout
	}
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return os.Stdout
	}
	unix.CloseOnExec(fd)
	_ = unix.SetNonblock(fd, true)
	return os.NewFile(uintptr(fd), "protocol-out")
}

// ProtocolIn returns a non-blocking duplicate of standard input, so reads
// park the reading goroutine in the runtime's poller instead of holding a
// thread in a blocking read(2) for the worker's whole life.
func ProtocolIn() *os.File {
	// A duplicate, so os.Stdin keeps its own descriptor and finalizer.
	fd, err := unix.Dup(0)
	if err != nil {
		return os.Stdin
	}
	unix.CloseOnExec(fd)
	_ = unix.SetNonblock(fd, true)
	return os.NewFile(uintptr(fd), "protocol-in")
}
