// Package threadcpu reads the CPU time of the calling OS thread, with
// which the chart budget and the free-call budget charge host work to the
// execution that asked for it (the caller locks its goroutine to the
// thread while it measures).
package threadcpu

import (
	"syscall"
	"time"
)

// rusageThread is RUSAGE_THREAD, which package syscall does not name.
const rusageThread = 1

// Now is the CPU time of the calling OS thread, user and system, or 0
// when it cannot be read.
func Now() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
