package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/brakinglab/codemode-go/sandbox/internal/wire"
)

// The worker side of ModeWorker. A worker is the host binary re-executed
// with workerEnv=1 and nothing else in its environment: this package's init
// hook notices the variable, serves the protocol on stdin and the original
// stdout (moved off descriptor 1, see protocolOut) and exits, before main or
// the host's own init functions run. Embedding services and test binaries
// therefore need no separate worker binary, and any binary that imports
// this package can also be used as Options.WorkerPath.
//
// Inside a worker each execution gets: a heap watchdog (watchdog.go) that
// interrupts at the memory limit and, if a builtin keeps allocating,
// reports MEMORY_LIMIT and exits; RLIMIT_DATA (rlimit.go) as the backstop
// for single huge allocations; debug.SetMemoryLimit and SetMaxStack; the
// engine's own timeout. The parent adds the hard deadline (timeout + 1 s,
// then SIGKILL to the process group).

func init() {
	if os.Getenv(workerEnv) != "1" {
		return
	}
	os.Exit(serveWorker(protocolIn(), protocolOut()))
}

// Exit codes of a worker process.
const (
	workerExitOK       = 0 // the parent closed stdin
	workerExitProtocol = 3 // the parent sent something unexpected
	workerExitMemory   = 4 // a builtin kept allocating past the memory limit
)

// memoryStopGrace is how long a script may take to stop after the watchdog
// interrupted it. A single builtin call (fill on a huge array) ignores the
// interrupt while it allocates; past the grace the worker reports
// MEMORY_LIMIT and exits.
const memoryStopGrace = 100 * time.Millisecond

// serveWorker runs the worker loop until in ends.
func serveWorker(in *os.File, out *os.File) int {
	r, w := wire.NewReader(in), wire.NewWriter(out)

	f, err := r.Read()
	if err != nil || f.Type != wire.Setup {
		return workerExitProtocol
	}
	var setup setupMsg
	if err := json.Unmarshal(f.A, &setup); err != nil {
		return workerExitProtocol
	}
	hello := helloMsg{PID: os.Getpid()}
	if setup.Version != protocolVersion {
		hello.Error = fmt.Sprintf("worker protocol version %d, parent speaks %d: rebuild the worker binary with the same codemode-go version", protocolVersion, setup.Version)
	} else {
		applied, err := applyWorkerLimits(setup)
		hello.DataLimit = applied
		if err != nil {
			hello.Error = err.Error()
		}
	}
	if err := w.Write(wire.Frame{Type: wire.Hello, A: mustJSON(hello)}); err != nil || hello.Error != "" {
		return workerExitProtocol
	}

	wk := &workerLoop{w: w, pending: map[uint64]chan wire.Frame{}}
	wk.idleBase.Store(liveHeap()) // applyWorkerLimits just collected
	for {
		f, err := r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return workerExitOK
			}
			return workerExitProtocol
		}
		switch f.Type {
		case wire.Exec:
			if !wk.start(f) {
				return workerExitProtocol
			}
		case wire.Return:
			wk.deliver(f)
		case wire.Cancel:
			wk.cancelRun()
		default:
			return workerExitProtocol
		}
	}
}

// applyWorkerLimits applies the kernel cap and Go runtime limits before any
// script runs.
func applyWorkerLimits(s setupMsg) (int64, error) {
	mem := s.MemoryBytes
	if mem <= 0 {
		mem = DefaultMemoryBytes
	}
	// Make the collector work harder as the heap nears the cap, so garbage
	// rarely looks like a breach to the watchdog.
	debug.SetMemoryLimit(idleBytes() + 2*mem)
	// Deep recursion through native callbacks grows the Go stack; stop it
	// well before it can take the whole data cap.
	debug.SetMaxStack(int(max(2*mem, 16<<20)))
	// A worker keeps few compiled programs: their heap counts against the
	// watchdog's baseline, not the script's budget, but should stay small.
	cache = newLRU(32, 4<<20)
	// One collection now gives the watchdog a true live-heap baseline
	// (/gc/heap/live:bytes is zero before the first one).
	runtime.GC()
	if s.DataHeadroom <= 0 || !dataLimitSupported {
		return 0, nil
	}
	base := vmData()
	if base == 0 {
		return 0, errors.New("cannot read VmData to size RLIMIT_DATA")
	}
	n := base + s.DataHeadroom
	if err := setDataLimit(n); err != nil {
		return 0, fmt.Errorf("setting RLIMIT_DATA: %w", err)
	}
	return n, nil
}

// workerLoop holds the state of the one execution a worker runs at a time.
type workerLoop struct {
	w *wire.Writer

	mu      sync.Mutex
	running bool
	cancel  context.CancelCauseFunc
	nextID  uint64
	pending map[uint64]chan wire.Frame
	runs    uint64 // executions finished

	// idleBase is the worker's own live heap (runtime, caches), measured
	// after a collection while idle: the watchdog's zero. Garbage and live
	// data of earlier executions must not raise it.
	idleBase atomic.Uint64
}

// idleCollectDelay is how long a worker must stay idle before it collects
// garbage and re-measures its baseline. Back-to-back executions never wait
// for a collection: forcing one after every execution tripled the p50.
const idleCollectDelay = 20 * time.Millisecond

// collectWhenIdle schedules a collection and a new baseline if the worker
// is still idle, after run number n, in idleCollectDelay.
func (l *workerLoop) collectWhenIdle(n uint64) {
	time.AfterFunc(idleCollectDelay, func() {
		idle := func() bool {
			l.mu.Lock()
			defer l.mu.Unlock()
			return !l.running && l.runs == n
		}
		if !idle() {
			return
		}
		runtime.GC()
		if base := liveHeap(); idle() {
			l.idleBase.Store(base)
		}
	})
}

// start begins the execution described by an Exec frame; it reports false
// if one is already running or the frame is malformed.
func (l *workerLoop) start(f wire.Frame) bool {
	var m execMsg
	if err := json.Unmarshal(f.A, &m); err != nil || len(m.Hash) != 32 {
		return false
	}
	l.mu.Lock()
	if l.running {
		l.mu.Unlock()
		return false
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	l.running, l.cancel = true, cancel
	l.mu.Unlock()
	if err := l.w.Write(wire.Frame{Type: wire.Started}); err != nil {
		os.Exit(workerExitProtocol)
	}
	go l.run(ctx, cancel, m, string(f.B))
	return true
}

func (l *workerLoop) run(ctx context.Context, cancel context.CancelCauseFunc, m execMsg, js string) {
	var once sync.Once
	send := func(d doneMsg) (sent bool) {
		once.Do(func() {
			sent = true
			b, err := json.Marshal(d)
			if err != nil {
				b = mustJSON(doneMsg{Error: newError(KindInternal, "the result could not be encoded: %v", err), Dirty: true})
			}
			err = l.w.Write(wire.Frame{Type: wire.Done, A: b})
			if errors.Is(err, wire.ErrTooLarge) {
				b = mustJSON(doneMsg{Error: newError(KindInternal, "the result is %d bytes, too large to return; return or log less", len(b))})
				err = l.w.Write(wire.Frame{Type: wire.Done, A: b})
			}
			if err != nil {
				os.Exit(workerExitProtocol)
			}
		})
		return sent
	}
	done := l.execute(ctx, cancel, m, js, send)
	cancel(nil)
	l.mu.Lock()
	l.running, l.cancel = false, nil
	l.runs++
	n := l.runs
	// Calls still pending belong to the finished execution; their answers
	// are dropped on arrival.
	clear(l.pending)
	l.mu.Unlock()
	send(done)
	l.collectWhenIdle(n)
}

func (l *workerLoop) execute(ctx context.Context, cancel context.CancelCauseFunc, m execMsg, js string, send func(doneMsg) bool) (done doneMsg) {
	defer func() {
		if v := recover(); v != nil {
			done = doneMsg{Error: newError(KindInternal, "the sandbox worker failed: %v", v), Dirty: true}
		}
	}()
	var hash [32]byte
	copy(hash[:], m.Hash)
	prog, err := compiledFromJS(hash, js)
	if err != nil {
		return doneMsg{Error: asSandboxError(err)}
	}
	stop := watchHeap(m.Limits.MemoryBytes, l.idleBase.Load(), func(used uint64) {
		merr := memoryLimitError(m.Limits.MemoryBytes)
		cancel(merr)
		time.AfterFunc(memoryStopGrace, func() {
			if send(doneMsg{Error: merr, Dirty: true}) {
				fmt.Fprintf(os.Stderr, "sandbox worker: out of memory: %d bytes in use, still allocating after the interrupt\n", used)
				os.Exit(workerExitMemory)
			}
		})
	})
	res, err := execute(ctx, prog, &relayHost{loop: l, funcs: m.Functions}, m.Limits, execHooks{})
	breached := stop()
	done.Result = res
	if err != nil {
		done.Error = asSandboxError(err)
	}
	if breached && (done.Error == nil || done.Error.Kind == KindCancelled || done.Error.Kind == KindRuntime) {
		// The watchdog fired: whatever the interrupted script reported,
		// the cause is memory.
		e := memoryLimitError(m.Limits.MemoryBytes)
		if done.Error != nil {
			e.CallsUsed = done.Error.CallsUsed
		}
		done.Error, done.Result = e, res
		if res != nil {
			res.Value = nil
		}
	}
	if breached || done.Error != nil && (done.Error.Kind == KindMemoryLimit || done.Error.Kind == KindTimeout || done.Error.Kind == KindInternal || done.Error.Kind == KindCancelled) {
		// Interrupted scripts can leave builtins mid-way and the heap
		// bloated: never hand this process to the next user.
		done.Dirty = true
	}
	return done
}

// memoryLimitError is the error the watchdog ends an execution with.
func memoryLimitError(limit int64) *Error {
	return newError(KindMemoryLimit,
		"the script used more than the %d MiB memory limit and was stopped. Keep less data in memory: filter or aggregate as you go instead of building large arrays or strings.",
		limit>>20)
}

// asSandboxError returns err as an *Error, wrapping anything else as
// INTERNAL.
func asSandboxError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return newError(KindInternal, "%v", err)
}

func (l *workerLoop) deliver(f wire.Frame) {
	l.mu.Lock()
	ch, ok := l.pending[f.ID]
	delete(l.pending, f.ID)
	l.mu.Unlock()
	if ok {
		ch <- f
	}
}

func (l *workerLoop) cancelRun() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cancel != nil {
		l.cancel(context.Canceled)
	}
}

// maxParentFrame is the largest frame the parent reads from a worker: a
// Done frame carries at most the output cap, which JSON escaping can grow
// up to sixfold (control characters), plus call records and error text.
func maxParentFrame(maxOutput int) int {
	return max(maxCallArgsBytes, 6*maxOutput) + 1<<20
}

// relayHost is the Host a worker gives the engine: each call travels to the
// parent's Host over the pipe. Calls are concurrent: each waits on its own
// channel.
type relayHost struct {
	loop  *workerLoop
	funcs map[string][]string
}

func (h *relayHost) Functions() map[string][]string { return h.funcs }

func (h *relayHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	l := h.loop
	ch := make(chan wire.Frame, 1)
	l.mu.Lock()
	l.nextID++
	id := l.nextID
	l.pending[id] = ch
	l.mu.Unlock()
	// Arguments over maxCallArgsBytes never get here: the engine rejects
	// the call (bind.go), and the parent's frame limit is the backstop.
	if err := l.w.Write(wire.Frame{Type: wire.Call, ID: id, A: []byte(name), B: args}); err != nil {
		os.Exit(workerExitProtocol)
	}
	select {
	case f := <-ch:
		if len(f.B) > 0 {
			e, p := decodeHostErr(f.B)
			if p != "" {
				panic(p)
			}
			return nil, e
		}
		return f.A, nil
	case <-ctx.Done():
		l.mu.Lock()
		delete(l.pending, id)
		l.mu.Unlock()
		return nil, ctx.Err()
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
