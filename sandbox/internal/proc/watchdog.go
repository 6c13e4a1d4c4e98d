package proc

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// The in-worker heap watchdog. goja has no heap limit, so a worker samples
// the Go heap every millisecond while a script runs and ends the execution
// when it grew past the memory limit. Attribution is exact because a worker
// runs one execution at a time.

// WatchInterval is how often the watchdog samples the heap (one sample
// costs about half a microsecond).
const WatchInterval = time.Millisecond

var heapMetrics = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/stacks:bytes",
}

// HeapInUse returns the bytes in live-or-unswept heap objects plus
// goroutine stacks.
func HeapInUse(s []metrics.Sample) uint64 {
	metrics.Read(s)
	var n uint64
	for _, x := range s {
		if x.Value.Kind() == metrics.KindUint64 {
			n += x.Value.Uint64()
		}
	}
	return n
}

// NewHeapSamples returns the samples HeapInUse reads, made once per watch.
func NewHeapSamples() []metrics.Sample {
	s := make([]metrics.Sample, len(heapMetrics))
	for i, name := range heapMetrics {
		s[i].Name = name
	}
	return s
}

// IdleBytes is the Go runtime's total mapped memory now.
func IdleBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// LiveHeap returns the heap that survived the last collection plus the
// current goroutine stacks: the worker's own state, without garbage.
func LiveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	return HeapInUse(s)
}

// WatchHeap starts the watchdog for one execution allowed limit bytes above
// base, the worker's own live heap measured while idle. When the heap stays
// above that after a forced collection (garbage must not count), it calls
// breach once with the bytes in use. stop ends the watchdog and reports
// whether breach was called.
//
// stop does not wait for the watchdog's goroutine to exit (that would cost
// the execution a goroutine wake-up): once stop has returned, breach is no
// longer called, and the goroutine ends at its next tick.
func WatchHeap(limit int64, base uint64, breach func(used uint64)) (stop func() bool) {
	samples := NewHeapSamples()
	max := base + uint64(limit)
	quit := make(chan struct{})
	var (
		mu       sync.Mutex
		stopped  bool
		breached bool
	)
	go func() {
		t := time.NewTicker(WatchInterval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			if HeapInUse(samples) <= max {
				continue
			}
			runtime.GC()
			if used := HeapInUse(samples); used > max {
				mu.Lock()
				if !stopped {
					breached = true
					breach(used - base)
				}
				mu.Unlock()
				return
			}
		}
	}()
	return func() bool {
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			stopped = true
			close(quit)
		}
		return breached
	}
}
