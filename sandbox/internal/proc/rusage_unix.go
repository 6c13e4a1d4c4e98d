//go:build unix

package proc

import (
	"os"
	"runtime"
	"syscall"
)

// MaxRSS returns the peak resident set size of an exited process in bytes.
func MaxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss // bytes on macOS
	}
	return ru.Maxrss << 10 // kilobytes on Linux and the BSDs
}
