package sandbox

// The in-process side: executions run on goroutines of the calling
// process (ModeInProcess). Compilation runs there too, on a goroutine the
// caller abandons at the hard deadline.

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// MaxAbandonedInProcess is how many in-process executions may still be
// running after the caller was answered at their hard deadline (a
// compilation or a single builtin call that cannot be interrupted) before
// ModeInProcess refuses new executions. Worker mode kills such executions
// with their process instead.
// The bound is per caller (partition): one caller's runaway builtins do
// not refuse anyone else. All callers together may leave
// maxAbandonedTotal such executions before every new one is refused.
const MaxAbandonedInProcess = 2

// maxAbandonedTotal bounds the abandoned executions of all callers.
const maxAbandonedTotal = 4 * MaxAbandonedInProcess

// inProcess runs executions on goroutines of the calling process.
type inProcess struct {
	// ready holds one runtime made ahead (newExecution), so an execution
	// usually starts on a ready runtime while the next one is made on
	// another goroutine. Each is used once.
	ready chan *execution
	bg    sync.WaitGroup // a runtime being made

	abandoned atomic.Int32 // executions past their hard deadline, still running

	abandonedMu sync.Mutex
	abandonedBy map[string]int // abandoned, by partition

	// admit bounds the executions running at once as the pool's workers
	// do, with the same fairness and reserve: goroutines cost no process,
	// but one caller's spinning scripts would otherwise take every core.
	// A caller alone may run up to inProcessBurst times as many: an
	// execution waiting for a host call leaves its core idle.
	admit *admission
	quit  <-chan struct{} // closed when the sandbox starts closing
}

// inProcessBurst is how many times the slots a caller alone may use in
// process (admission.burst).
const inProcessBurst = 2

func newInProcess(slots int, quit <-chan struct{}) *inProcess {
	p := &inProcess{ready: make(chan *execution, 1), admit: newAdmissionBurst(slots, inProcessBurst*slots), quit: quit}
	p.refill()
	return p
}

// refill makes a runtime for ready in the background. It is called only
// when ready was just emptied, so at most one is made at a time.
func (p *inProcess) refill() {
	p.bg.Add(1)
	go func() {
		defer p.bg.Done()
		if e, err := newExecution(); err == nil {
			select {
			case p.ready <- e:
			default:
			}
		}
	}()
}

// run compiles and executes on a goroutine so the caller gets an answer at
// the hard deadline even when the compilation or a single builtin call
// (a huge indexOf) ignores the interrupt. Such an execution is abandoned:
// a builtin returns soon after the pending interrupt, a compilation runs
// to its end.
func (p *inProcess) run(ctx context.Context, src source, host Host, lim Limits) (*Result, error) {
	if n := p.abandonedOf(src.partition); n >= MaxAbandonedInProcess {
		return nil, newError(KindInternal, "the sandbox is still stopping %d of this caller's earlier executions that ran past their deadline; retry in a few seconds", n)
	}
	if n := p.abandoned.Load(); n >= maxAbandonedTotal {
		return nil, newError(KindInternal, "the sandbox is still stopping %d earlier executions that ran past their deadline; retry in a few seconds", n)
	}
	release, err := p.admit.acquire(ctx, src.partition, p.quit)
	if err != nil {
		return nil, err
	}
	defer release()
	var prepared *execution
	select {
	case prepared = <-p.ready:
		p.refill()
	default: // taken by a concurrent execution: execute makes its own
	}
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	var compiling atomic.Bool
	compiling.Store(true)
	// state: 0 running, 1 finished, 2 abandoned at the hard deadline.
	var state atomic.Int32
	go func() {
		var o outcome
		func() {
			defer func() {
				if r := recover(); r != nil {
					o = outcome{nil, internalError(fmt.Sprintf("compile panic: %v", r))}
				}
			}()
			start := time.Now()
			prog, err := compile(src, lim.MaxCodeBytes)
			compiling.Store(false)
			if err != nil {
				o.err = err
				return
			}
			o.res, o.err = runScript(ctx, prog, host, lim, execHooks{prepared: prepared, spent: time.Since(start), entropy: src.entropy})
		}()
		if !state.CompareAndSwap(0, 1) {
			p.abandon(src.partition, -1)
		}
		done <- o
	}()
	deadline := time.NewTimer(lim.Timeout + hardDeadlineGrace)
	defer deadline.Stop()
	ctxDone := ctx.Done()
	for {
		select {
		case o := <-done:
			return o.res, o.err
		case <-ctxDone:
			ctxDone = nil
			deadline.Reset(hardDeadlineGrace)
		case <-deadline.C:
			if !state.CompareAndSwap(0, 2) {
				o := <-done // finished in the meantime
				return o.res, o.err
			}
			p.abandon(src.partition, 1)
			if compiling.Load() {
				if ctx.Err() != nil {
					return nil, cancelledError(ctx)
				}
				return nil, compileTimeoutError(lim.Timeout)
			}
			kind := KindTimeout
			if ctx.Err() != nil {
				kind = cancelledError(ctx).Kind
			}
			return nil, &Error{Kind: kind, Message: fmt.Sprintf(
				"the script ran past its %s limit inside a single builtin call that cannot be interrupted (such as indexOf or sort on a huge array) and was abandoned. Work on smaller data.", lim.Timeout)}
		}
	}
}

// abandon counts d more (or, negative, fewer) abandoned executions of
// partition.
func (p *inProcess) abandon(partition string, d int) {
	p.abandoned.Add(int32(d))
	p.abandonedMu.Lock()
	defer p.abandonedMu.Unlock()
	if p.abandonedBy == nil {
		p.abandonedBy = map[string]int{}
	}
	if n := p.abandonedBy[partition] + d; n > 0 {
		p.abandonedBy[partition] = n
	} else {
		delete(p.abandonedBy, partition)
	}
}

// abandonedOf is how many abandoned executions of partition still run.
func (p *inProcess) abandonedOf(partition string) int {
	p.abandonedMu.Lock()
	defer p.abandonedMu.Unlock()
	return p.abandonedBy[partition]
}

// compileTimeoutError is the TIMEOUT of a program whose compilation did
// not finish within its time limit.
func compileTimeoutError(timeout time.Duration) *Error {
	return newError(KindTimeout,
		"the program is too complex to compile: compiling it took longer than the %s time limit, and nothing ran. Deeply nested arrow functions with default parameters, or long chains of them, make compilation explode; write flatter code with named functions.",
		timeout)
}

// close waits for a runtime being made and drops the ready one.
func (p *inProcess) close() error {
	p.bg.Wait()
	select {
	case <-p.ready:
	default:
	}
	return nil
}
