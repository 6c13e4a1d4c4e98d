package proc

import (
	"runtime"
	"testing"
	"time"
)

func TestDataHeadroom(t *testing.T) {
	if got, want := DataHeadroom(32<<20), int64(128<<20)*raceMemoryFactor; got != want {
		t.Fatalf("DataHeadroom(32 MiB) = %d, want %d", got, want)
	}
	if runtime.GOOS == "linux" && VMData() <= 0 {
		t.Fatal("VMData could not read VmData")
	}
}

// The watchdog calls breach once the heap stays over its limit after a
// collection, and not for garbage.
func TestWatchHeap(t *testing.T) {
	runtime.GC()
	base := LiveHeap()
	breached := make(chan uint64, 1)
	stop := WatchHeap(8<<20, base, func(used uint64) { breached <- used })
	keep := make([][]byte, 0, 64)
	for range 64 { // 32 MiB kept live
		keep = append(keep, make([]byte, 512<<10))
	}
	select {
	case used := <-breached:
		if used < 8<<20 {
			t.Fatalf("breach at %d bytes, under the limit", used)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no breach with 32 MiB live over an 8 MiB limit")
	}
	if !stop() {
		t.Fatal("stop did not report the breach")
	}
	runtime.KeepAlive(keep)

	keep = nil
	runtime.GC()
	stop = WatchHeap(8<<20, LiveHeap(), func(uint64) { t.Error("garbage counted as a breach") })
	for range 256 { // 128 MiB of garbage, never live at once
		sink = make([]byte, 512<<10)
	}
	time.Sleep(20 * WatchInterval)
	if stop() {
		t.Fatal("breach reported for garbage")
	}
}

// sink keeps allocations from being optimised away.
var sink []byte
