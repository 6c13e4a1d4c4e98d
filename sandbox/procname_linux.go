package sandbox

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// workerComm is a worker's kernel name (ps -e, top), NUL-terminated: at
// most 15 bytes before the NUL. A package variable, so it never moves.
var workerComm = []byte("codemode-worker\x00")

// Runs before worker.go's init (files initialise in name order), which
// never returns in a worker: re-executed through /proc/self/exe, the
// process would otherwise be called "exe".
func init() {
	if os.Getenv(workerEnv) == "1" {
		_ = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&workerComm[0])), 0, 0, 0)
	}
}
