package freecalls

import (
	"syscall"
	"time"
)

// rusageThread is RUSAGE_THREAD, which package syscall does not name.
const rusageThread = 1

// threadCPU is the CPU time of the calling OS thread, user and system, or
// 0 when it cannot be read. The caller locks its goroutine to the thread.
// A twin of package chart's threadCPU.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
