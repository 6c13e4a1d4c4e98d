// Package freecalls is the budget of an execution's free calls: the
// functions of the codemode namespace (chart, progress, search, describe,
// and any added later) that do not spend the call limit, so that a script
// can report progress, add charts and look declarations up and still make
// every host call it may. Free must not mean unbounded: a script looping
// on codemode.chart once spent 5.0 s of host CPU in 8 s decoding about
// 170 MB of arguments, and one looping on codemode.progress 4.5 s.
//
// Each execution gets a [Budget]: at most [MaxCalls] free calls, [MaxBytes]
// of their arguments, and [MaxCPU] of host CPU time spent answering them
// (measured on the answering goroutine's OS thread on Linux, wall time
// elsewhere). A call past any of them is refused before its arguments are
// decoded, with an error that says what to do instead. A function's own
// bounds (discovery's cache and budget, chart's six charts) apply within.
//
// A new free function joins with one line: its case in the host's
// dispatch, inside [Budget.Call].
package freecalls

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// The bounds of one execution's free calls.
const (
	// MaxCalls is the most free calls one execution may make, all
	// functions together: a script reporting progress once per item of a
	// long loop should report every n-th item.
	MaxCalls = 1000
	// MaxBytes is the most bytes of JSON arguments one execution's free
	// calls may pass, all together: enough for every chart the output
	// limit can show many times over.
	MaxBytes = 4 << 20
	// MaxCPU is the most host CPU time one execution's free calls may
	// take to answer.
	MaxCPU = 500 * time.Millisecond
)

// Budget is one execution's spending of free calls. The zero value is a
// full budget; it is safe for concurrent use.
type Budget struct {
	mu    sync.Mutex
	calls int
	bytes int
	cpu   time.Duration
}

// Reset refills the budget: a run resumed after an approval starts where
// the asking run did, so it takes the same branches.
func (b *Budget) Reset() {
	b.mu.Lock()
	b.calls, b.bytes, b.cpu = 0, 0, 0
	b.mu.Unlock()
}

// Call runs the free call codemode.<fn>(args) with answer, within the
// budget: past any bound it answers nothing and returns an error for the
// script that says what to do. The host CPU answer takes is charged.
func (b *Budget) Call(fn string, args json.RawMessage, answer func() (json.RawMessage, error)) (json.RawMessage, error) {
	b.mu.Lock()
	b.calls++
	b.bytes += len(args)
	calls, bytes, cpu := b.calls, b.bytes, b.cpu
	b.mu.Unlock()
	switch {
	case calls > MaxCalls:
		return nil, fmt.Errorf("codemode.%s: not run: this execution has already made %d calls to codemode functions (chart, progress, search, describe), the most one execution may make. "+
			"Report progress every n-th item rather than every item, describe many functions in one call, keep answers in variables, and add fewer charts", fn, MaxCalls)
	case bytes > MaxBytes:
		return nil, fmt.Errorf("codemode.%s: not run: this execution's calls to codemode functions have passed %d bytes of arguments, over the %d MiB one execution may pass. "+
			"Plot fewer points (aggregate, or every n-th point), send short progress messages, and do not repeat a call with the same data", fn, bytes-len(args), MaxBytes>>20)
	case cpu > MaxCPU:
		return nil, fmt.Errorf("codemode.%s: not run: this execution's calls to codemode functions have used their %v of host CPU. "+
			"Make fewer and smaller calls to codemode functions, or return what you have and continue in a new execution", fn, MaxCPU)
	}
	runtime.LockOSThread()
	start, wall := threadCPU(), time.Now()
	out, err := answer()
	used := threadCPU() - start
	if start == 0 {
		used = time.Since(wall)
	}
	runtime.UnlockOSThread()
	b.mu.Lock()
	b.cpu += used
	b.mu.Unlock()
	return out, err
}

// Spent returns the calls made, the bytes of their arguments and the CPU
// time charged so far.
func (b *Budget) Spent() (calls, bytes int, cpu time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls, b.bytes, b.cpu
}
