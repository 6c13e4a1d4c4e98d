package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/brakinglab/codemode-go/sandbox/internal/wire"
)

// cancelGrace is how long a worker has to stop after a Cancel frame before
// it is killed: the engine's hostGrace for host calls to return after
// their cancellation, and a margin.
const cancelGrace = hostGrace + 250*time.Millisecond

// errLostBeforeStart reports a worker that died before it received the
// program; the pool retries such an execution once on a fresh worker, since
// nothing of the script ran.
var errLostBeforeStart = newError(KindInternal, "the sandbox worker was lost before the script started; retry")

// Why the parent killed a worker during an execution.
const (
	killNone int32 = iota
	killTimeout
	killCancel
	killProtocol
)

// execute compiles and runs src on w. reuse reports whether w is clean
// enough to serve another execution.
func (w *workerProc) run(ctx context.Context, p *pool, src source, host Host, lim Limits) (res *Result, err error, reuse bool) {
	start := time.Now()
	msg := execMsg{Key: src.key[:], Limits: lim, Functions: host.Functions(), Entropy: src.entropy}
	if fh, ok := host.(FreeHost); ok {
		msg.Free = fh.FreeNamespaces()
	}
	if sh, ok := host.(SubprogramHost); ok {
		msg.Sub = sh.SubprogramNamespaces()
	}
	_, msg.Explain = host.(Explainer)
	_, msg.Withhold = host.(Withholder)
	req, merr := json.Marshal(msg)
	if merr != nil {
		return nil, newError(KindInternal, "the host's function list could not be encoded: %v", merr), true
	}
	// The hard deadline starts before the first write: a wedged worker
	// that stopped reading its pipe must not block the caller forever.
	var why atomic.Int32
	hard := time.AfterFunc(lim.Timeout+hardDeadlineGrace, func() {
		why.CompareAndSwap(killNone, killTimeout)
		w.kill()
	})
	defer func() {
		if !hard.Stop() {
			reuse = false // the kill raced with the end of the execution
		}
	}()
	if werr := w.w.Write(wire.Frame{Type: wire.Exec, A: req, B: []byte(src.ts)}); werr != nil {
		if errors.Is(werr, wire.ErrTooLarge) {
			return nil, newError(KindCodeTooLarge, "the program is too large to run in a sandbox worker; split the work into smaller executions"), true
		}
		p.logger.Warn("sandbox: worker lost before an execution", "pid", w.pid, "err", werr)
		return nil, errLostBeforeStart, false
	}

	// Host calls get the caller's values and a context that ends with the
	// execution, as in-process: cancelling ctx stops the script first
	// (Cancel frame), so the script never sees its calls fail with
	// "context canceled" before it is stopped.
	// They also carry the execution's hard deadline (see runScript), so a
	// database driver can bound its own work.
	callCtx, endCalls := context.WithDeadline(context.WithoutCancel(ctx), start.Add(lim.Timeout+hardDeadlineGrace))
	defer endCalls()
	// The worker never abandons a started call: when it must stop one (the
	// time limit, a cancelled execution) it sends CancelCall and waits for
	// the Return frame, so the outcome it reports is what the host did.
	var callsMu sync.Mutex
	cancelCall := map[uint64]context.CancelFunc{}

	finished := make(chan struct{})
	var endMu sync.Mutex // orders a late Cancel frame before the end
	defer func() {
		endMu.Lock()
		close(finished)
		endMu.Unlock()
	}()
	stopCancel := context.AfterFunc(ctx, func() {
		endMu.Lock()
		select {
		case <-finished:
			// The execution is over and the worker may already serve
			// someone else: a Cancel now would stop their script.
			endMu.Unlock()
			return
		default:
		}
		_ = w.w.Write(wire.Frame{Type: wire.Cancel})
		endMu.Unlock()
		t := time.NewTimer(cancelGrace)
		defer t.Stop()
		select {
		case <-t.C:
			why.CompareAndSwap(killNone, killCancel)
			w.kill()
		case <-finished:
		}
	})
	defer stopCancel()

	w.r.Max = maxParentFrame(lim.MaxOutputBytes)
	started := false
	for {
		f, rerr := w.r.Read()
		if errors.Is(rerr, wire.ErrTooLarge) {
			why.CompareAndSwap(killNone, killProtocol)
			w.kill()
			p.logger.Error("sandbox: oversized frame from worker", "pid", w.pid)
			return nil, newError(KindInternal, "the sandbox worker sent more data than allowed and was stopped; return or log less"), false
		}
		if rerr != nil {
			if !started && why.Load() == killNone {
				w.kill()
				p.logger.Warn("sandbox: worker lost before an execution", "pid", w.pid, "err", rerr)
				return nil, errLostBeforeStart, false
			}
			return nil, w.deathError(ctx, p, why.Load(), lim, rerr), false
		}
		switch f.Type {
		case wire.Started:
			started = true
		case wire.Call:
			p.bg.Add(1)
			cctx, cancel := context.WithCancel(callCtx)
			name, pos, positioned := decodeCallName(f.A)
			if positioned {
				cctx = withCallPosition(cctx, pos)
			}
			callsMu.Lock()
			cancelCall[f.ID] = cancel
			callsMu.Unlock()
			go func(id uint64, name string, args []byte) {
				w.relayCall(cctx, p, host, id, name, args)
				callsMu.Lock()
				delete(cancelCall, id)
				callsMu.Unlock()
				cancel()
			}(f.ID, name, f.B)
		case wire.CancelCall:
			callsMu.Lock()
			if cancel := cancelCall[f.ID]; cancel != nil {
				cancel()
			}
			callsMu.Unlock()
		case wire.Done:
			d, jerr := decodeDone(f.A)
			if jerr != nil {
				w.kill()
				return nil, newError(KindInternal, "the sandbox worker sent an unreadable result; retry"), false
			}
			if d.Result != nil {
				d.Result.Duration = time.Since(start)
			}
			if d.Error != nil {
				if d.Error.Kind == KindCancelled && ctx.Err() != nil {
					// Say why the caller's context ended (deadline or cancel).
					d.Error.Message = cancelledError(ctx).Message
				}
				return d.Result, d.Error, !d.Dirty
			}
			if d.Result == nil {
				return nil, newError(KindInternal, "the sandbox worker sent no result; retry"), false
			}
			return d.Result, nil, !d.Dirty
		default:
			why.CompareAndSwap(killNone, killProtocol)
			w.kill()
			p.logger.Error("sandbox: unexpected frame from worker", "pid", w.pid, "type", f.Type.String())
			return nil, newError(KindInternal, "the sandbox worker broke protocol and was stopped; retry"), false
		}
	}
}

// relayCall runs one host call for the worker and sends back the result.
func (w *workerProc) relayCall(ctx context.Context, p *pool, host Host, id uint64, name string, args []byte) {
	defer p.bg.Done()
	ctx, sink := withWarnings(ctx)
	res, explained := explainCall(host, name, args)
	var err error
	if !explained {
		res, explained, err = subprogramCall(ctx, host, name, args)
	}
	if !explained {
		res, err = callHost(ctx, host, name, args)
	}
	for _, m := range sink.take() {
		_ = w.w.Write(wire.Frame{Type: wire.Warn, ID: id, A: []byte(m)})
	}
	f := wire.Frame{Type: wire.Return, ID: id}
	if err != nil {
		f.B = encodeHostErr(err)
	} else {
		f.A = res
		if len(f.A) == 0 {
			f.A = []byte("null")
		}
	}
	if werr := w.w.Write(f); werr == wire.ErrTooLarge {
		f.A, f.B = nil, encodeHostErr(fmt.Errorf("%s returned %d bytes, more than the sandbox can pass to a script; ask for less data", name, len(res)))
		_ = w.w.Write(f)
	}
	// Any other write error means the worker is gone; the execution loop
	// reports that.
}

// callHost calls host, turning a panic into a *hostPanic error.
func callHost(ctx context.Context, host Host, name string, args []byte) (res json.RawMessage, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &hostPanic{name: name, value: fmt.Sprint(v)}
		}
	}()
	return host.Call(ctx, name, args)
}

// deathError explains a worker that stopped answering during an execution.
func (w *workerProc) deathError(ctx context.Context, p *pool, why int32, lim Limits, readErr error) *Error {
	w.kill() // make sure it is gone and reaped
	switch why {
	case killTimeout:
		return newError(KindTimeout,
			"the script ran past the %s timeout and was stopped (compiling a too complex program, a single builtin call on a huge array or a backtracking regular expression cannot be interrupted). Do less work per execution.",
			lim.Timeout)
	case killCancel:
		return cancelledError(ctx)
	}
	sig, code, _ := w.exitStatus()
	stderr := w.tail.String()
	if code == workerExitMemory || looksLikeOOM(sig, stderr) {
		return memoryLimitError(lim.MemoryBytes)
	}
	p.logger.Error("sandbox: worker died during an execution",
		"pid", w.pid, "signal", sig, "exit", code, "read", readErr, "stderr", firstLines(stderr, 8), "stderrEnd", lastLines(stderr, 8))
	return newError(KindInternal, "the sandbox worker exited unexpectedly and the execution was lost; retry, and if it happens again simplify the script")
}

// looksLikeOOM reports whether a dead worker ran out of memory: the Go
// runtime's fatal errors for a failed allocation, a thread that could not
// get its stack, or an overgrown goroutine stack (RLIMIT_DATA and the
// maximum stack make these fail), or a SIGKILL we did not send (the
// kernel's OOM killer, a cgroup limit).
func looksLikeOOM(sig syscall.Signal, stderr string) bool {
	if sig == syscall.SIGKILL {
		return true
	}
	if runtimeFault(stderr) {
		return true
	}
	for _, s := range []string{
		"out of memory",
		"cannot allocate memory",
		"stack overflow",
		"stack exceeds",
		"failed to allocate",
		"mmap failed",
		// cgo builds: a new thread's 8 MiB stack counts against
		// RLIMIT_DATA, so near the cap thread creation fails first.
		"pthread_create failed",
	} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

// runtimeFault reports a segmentation fault inside the Go runtime itself.
// The worker is pure Go code under RLIMIT_DATA; measured on Go 1.26, when a
// huge allocation exhausts the cap, the garbage collector can fault on a
// work buffer it failed to map (SIGSEGV at address 0 in
// runtime.(*spanQueue).tryDrain) instead of reporting "out of memory".
func runtimeFault(stderr string) bool {
	if !strings.HasPrefix(stderr, "SIGSEGV") {
		return false
	}
	// The first frame of the traceback names the faulting function.
	for _, line := range strings.Split(firstLines(stderr, 12), "\n") {
		if strings.HasSuffix(line, ":") || line == "" || !strings.Contains(line, "(") {
			continue
		}
		return strings.HasPrefix(line, "runtime.")
	}
	return false
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
