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
// decoded, with an error that says what to do instead; a script that
// keeps calling after [MaxRefused] refusals is stopped. A function's own
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

	"github.com/brakinglab/codemode-go/internal/threadcpu"
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
	// MaxRefused is how many free calls past the budget are refused
	// before the execution is stopped (see [Budget.Reset]): a refused call
	// still crosses from the sandbox to the host, so a script that
	// catches the refusal and calls again would spend host CPU until its
	// time limit.
	MaxRefused = 100
)

// ErrKeptCalling is the cause a [Budget] stops its execution with, after
// MaxRefused refused calls. Its message is written for the model.
var ErrKeptCalling = fmt.Errorf("this execution kept calling codemode functions (chart, progress, search, describe) after %d calls were refused for its budget, so it was stopped. "+
	"Retrying a refused call does not help: report progress every n-th item, add fewer and smaller charts, and keep discovery answers in variables", MaxRefused)

// Budget is one execution's spending of free calls. The zero value is a
// full budget; it is safe for concurrent use.
type Budget struct {
	mu      sync.Mutex
	stop    func(cause error)
	calls   int
	bytes   int
	cpu     time.Duration
	refused int
}

// Reset refills the budget for a run, which stop ends (a
// context.CancelCauseFunc of the run; nil: none) with cause
// ErrKeptCalling at the MaxRefused-th refused call. A run resumed after
// an approval starts where the asking run did, so it takes the same
// branches.
func (b *Budget) Reset(stop func(cause error)) {
	b.mu.Lock()
	b.calls, b.bytes, b.cpu, b.refused, b.stop = 0, 0, 0, 0, stop
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
	if err := check(fn, len(args), calls, bytes, cpu); err != nil {
		b.mu.Lock()
		b.refused++
		stop := b.stop
		if b.refused != MaxRefused {
			stop = nil
		}
		b.mu.Unlock()
		if stop != nil {
			stop(ErrKeptCalling)
		}
		return nil, err
	}
	runtime.LockOSThread()
	start, wall := threadcpu.Now(), time.Now()
	out, err := answer()
	used := threadcpu.Now() - start
	if start == 0 {
		used = time.Since(wall)
	}
	runtime.UnlockOSThread()
	b.mu.Lock()
	b.cpu += used
	b.mu.Unlock()
	return out, err
}

// check returns the refusal of the calls-th call, of n bytes of
// arguments, when the execution has spent bytes and cpu with it; nil
// when it may run.
func check(fn string, n, calls, bytes int, cpu time.Duration) error {
	switch {
	case calls > MaxCalls:
		return fmt.Errorf("codemode.%s: not run: this execution has already made %d calls to codemode functions (chart, progress, search, describe), the most one execution may make. "+
			"Report progress every n-th item rather than every item, describe many functions in one call, keep answers in variables, and add fewer charts", fn, MaxCalls)
	case bytes > MaxBytes:
		return fmt.Errorf("codemode.%s: not run: this execution's calls to codemode functions have passed %d bytes of arguments, over the %d MiB one execution may pass. "+
			"Plot fewer points (aggregate, or every n-th point), send short progress messages, and do not repeat a call with the same data", fn, bytes-n, MaxBytes>>20)
	case cpu > MaxCPU:
		return fmt.Errorf("codemode.%s: not run: this execution's calls to codemode functions have used their %v of host CPU. "+
			"Make fewer and smaller calls to codemode functions, or return what you have and continue in a new execution", fn, MaxCPU)
	}
	return nil
}

// Spent returns the calls made, the bytes of their arguments and the CPU
// time charged so far.
func (b *Budget) Spent() (calls, bytes int, cpu time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls, b.bytes, b.cpu
}
