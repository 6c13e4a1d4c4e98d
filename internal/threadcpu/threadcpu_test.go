package threadcpu

import (
	"runtime"
	"testing"
	"time"
)

func TestNowCountsThisThread(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread CPU time is read on Linux only")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := Now()
	for deadline := time.Now().Add(50 * time.Millisecond); time.Now().Before(deadline); {
	}
	if used := Now() - start; used <= 0 {
		t.Fatalf("50 ms of spinning counted %v of thread CPU", used)
	}
}
