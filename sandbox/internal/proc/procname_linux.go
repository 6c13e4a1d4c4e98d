package proc

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// workerComm is a worker's kernel name (ps -e, top), NUL-terminated: at
// most 15 bytes before the NUL. A package variable, so it never moves.
var workerComm = []byte("codemode-worker\x00")

// NameWorker names the calling process "codemode-worker" (as ps and top
// show it): re-executed through /proc/self/exe, a worker would otherwise be
// called "exe".
func NameWorker() {
	_ = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&workerComm[0])), 0, 0, 0)
}
