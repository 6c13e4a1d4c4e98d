//go:build unix

package sandbox

import (
	"os"

	"golang.org/x/sys/unix"
)

// protocolOut moves the protocol pipe off file descriptor 1 and points
// descriptor 1 at stderr, so nothing in the worker that writes to standard
// output (fmt.Print, a C library) can corrupt the protocol.
func protocolOut() *os.File {
	fd, err := unix.Dup(1)
	if err != nil {
		return os.Stdout
	}
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return os.Stdout
	}
	unix.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "protocol")
}
