package sandbox

import (
	"bytes"
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

	"github.com/brakinglab/codemode-go/sandbox/internal/proc"
	"github.com/brakinglab/codemode-go/sandbox/internal/wire"
)

// The worker side of ModeWorker. A worker is the host binary re-executed
// with workerEnv=1 and nothing else in its environment: this package's init
// hook notices the variable, serves the protocol on stdin and the original
// stdout (moved off descriptor 1, see proc.ProtocolOut) and exits, before main or
// the host's own init functions run. Embedding services and test binaries
// therefore need no separate worker binary, and any binary that imports
// this package can also be used as Options.WorkerPath.
//
// Inside a worker each execution gets: a heap watchdog (internal/proc) that
// interrupts at the memory limit and, if a builtin keeps allocating,
// reports MEMORY_LIMIT and exits; RLIMIT_DATA (internal/proc) as the backstop
// for single huge allocations; debug.SetMemoryLimit and SetMaxStack; the
// engine's own timeout. The parent adds the hard deadline (timeout + 1 s,
// then SIGKILL to the process group).

func init() {
	if os.Getenv(workerEnv) != "1" {
		return
	}
	proc.NameWorker()
	// The runtime locks the goroutine running init functions to the main
	// thread. Serving from it would make every wake-up of the protocol
	// loop a hand-off to that one thread; an ordinary goroutine runs on
	// whichever thread is awake. The main goroutine just waits.
	go func() { os.Exit(serveWorker(proc.ProtocolIn(), proc.ProtocolOut())) }()
	select {}
}

// Exit codes of a worker process.
const (
	workerExitOK       = 0 // the parent closed stdin
	workerExitProtocol = 3 // the parent sent something unexpected
	workerExitMemory   = 4 // a builtin kept allocating past the memory limit
	workerExitTimeout  = 5 // compiling the program took longer than its timeout
)

// memoryStopGrace is how long a script may take to stop after the watchdog
// interrupted it. A single builtin call (fill on a huge array) ignores the
// interrupt while it allocates; past the grace the worker reports
// MEMORY_LIMIT and exits.
const memoryStopGrace = 100 * time.Millisecond

// serveWorker runs the worker loop until in ends.
func serveWorker(in *os.File, out *os.File) int {
	inIO, _ := proc.PipeIO(in)
	_, outIO := proc.PipeIO(out)
	r, w := wire.NewReader(inIO), wire.NewWriter(outIO)

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

	wk := &childLoop{w: w, pending: map[uint64]*relayCall{}, runs: make(chan func()), builds: make(chan chan preparedRuntime, 1)}
	go wk.serveRuns()
	go wk.serveBuilds()
	wk.idleBase.Store(proc.LiveHeap()) // applyWorkerLimits just collected
	wk.prepare()
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
		case wire.Warn:
			wk.warn(f)
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
	debug.SetMemoryLimit(proc.IdleBytes() + 2*mem)
	// A worker's live heap is a few MiB, so at the default GOGC=100 every
	// transpile and compile of never-seen code (about 0.5 MB of garbage)
	// triggered a collection: GOGC=400 cut the distinct-code p50 by about
	// 30% (BenchmarkWorkerCoachingDistinct). The memory limit above and
	// the watchdog, which collects before it calls a breach, still bound
	// the heap.
	debug.SetGCPercent(400)
	// Deep recursion through native callbacks grows the Go stack; stop it
	// well before it can take the whole data cap.
	debug.SetMaxStack(int(max(2*mem, 16<<20)))
	useWorkerCache()
	// One collection now gives the watchdog a true live-heap baseline
	// (/gc/heap/live:bytes is zero before the first one).
	runtime.GC()
	if s.DataHeadroom <= 0 || !proc.DataLimitSupported {
		return 0, nil
	}
	base := proc.VMData()
	if base == 0 {
		return 0, errors.New("cannot read VmData to size RLIMIT_DATA")
	}
	n := base + s.DataHeadroom
	if err := proc.SetDataLimit(n); err != nil {
		return 0, fmt.Errorf("setting RLIMIT_DATA: %w", err)
	}
	return n, nil
}

// childLoop holds the state of the one execution a worker runs at a time.
type childLoop struct {
	w *wire.Writer

	mu      sync.Mutex
	running bool
	cancel  context.CancelCauseFunc
	nextID  uint64
	pending map[uint64]*relayCall
	done    uint64 // executions finished
	// next delivers the runtime for the next execution (see prepare).
	next chan preparedRuntime

	runs   chan func()               // to serveRuns
	builds chan chan preparedRuntime // to serveBuilds

	// idleBase is the worker's own live heap (runtime, caches), measured
	// after a collection while idle: the watchdog's zero. Garbage and live
	// data of earlier executions must not raise it.
	idleBase atomic.Uint64
}

// idleCollectDelay is how long a worker must stay idle before it collects
// garbage and re-measures its baseline. Back-to-back executions never wait
// for a collection: forcing one after every execution tripled the p50.
const idleCollectDelay = 20 * time.Millisecond

// idleReleaseDelay is how long a worker must stay idle before it returns
// its free heap pages to the operating system. At GOGC=400 the runtime
// keeps up to five times the live heap mapped, about 4 MiB of an idle
// worker's 8 MiB of its own memory (BenchmarkWorkerIdleRSS); a worker busy
// again within the delay keeps them and takes no page faults.
const idleReleaseDelay = time.Second

// collectWhenIdle schedules, after run number n, a collection and a new
// baseline if the worker is still idle in idleCollectDelay, and the
// release of free memory if it is still idle in idleReleaseDelay.
func (l *childLoop) collectWhenIdle(n uint64) {
	idle := func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return !l.running && l.done == n
	}
	time.AfterFunc(idleCollectDelay, func() {
		if !idle() {
			return
		}
		runtime.GC()
		if base := proc.LiveHeap(); idle() {
			l.idleBase.Store(base)
		}
	})
	time.AfterFunc(idleReleaseDelay, func() {
		if idle() {
			debug.FreeOSMemory()
		}
	})
}

// preparedRuntime is the outcome of newExecution.
type preparedRuntime struct {
	e   *execution
	err error
}

// prepare starts making the runtime for the next execution on its own
// goroutine and installs l.next to deliver it. It runs when the worker
// starts and, for each execution, when it first waits for a host call or
// else once it has finished: the next runtime is made while the worker
// would be idle, so a request rarely waits for one.
func (l *childLoop) prepare() {
	ch := make(chan preparedRuntime, 1)
	l.mu.Lock()
	l.next = ch
	l.mu.Unlock()
	l.builds <- ch // never blocks: one build per execution, taken before the next
}

// serveBuilds makes the runtimes prepare asks for. A long-lived goroutine
// (like serveRuns) keeps the stack goja grew into, instead of growing a
// fresh goroutine's stack again for every runtime.
func (l *childLoop) serveBuilds() {
	for ch := range l.builds {
		e, err := newExecution()
		ch <- preparedRuntime{e, err}
	}
}

// serveRuns runs executions one after another on one goroutine.
func (l *childLoop) serveRuns() {
	for run := range l.runs {
		run()
	}
}

// start begins the execution described by an Exec frame; it reports false
// if one is already running or the frame is malformed.
func (l *childLoop) start(f wire.Frame) bool {
	var m execMsg
	if err := json.Unmarshal(f.A, &m); err != nil || len(m.Key) != 32 {
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
	ts := string(f.B)
	// serveRuns is idle or finishing the previous execution's bookkeeping.
	l.runs <- func() { l.run(ctx, cancel, m, ts) }
	return true
}

func (l *childLoop) run(ctx context.Context, cancel context.CancelCauseFunc, m execMsg, ts string) {
	l.mu.Lock()
	next := l.next
	l.next = nil
	l.mu.Unlock()
	var once sync.Once
	send := func(d doneMsg) (sent bool) {
		once.Do(func() {
			sent = true
			b, err := marshalPlain(d)
			if err != nil {
				b = mustJSON(doneMsg{Error: internalError("encoding the result: " + err.Error()), Dirty: true})
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
	var prepared *execution
	if next != nil {
		// If it is still being made, this waits no longer than making one
		// here would take.
		if p := <-next; p.err == nil {
			prepared = p.e
		}
	}
	// The next runtime is made when this execution first waits for a host
	// call (the worker is idle then), or else once it has answered.
	var prepOnce sync.Once
	prep := func() { prepOnce.Do(l.prepare) }
	done := l.serveExec(ctx, cancel, m, ts, send, execHooks{prepared: prepared, waiting: prep})
	cancel(nil)
	l.mu.Lock()
	l.running, l.cancel = false, nil
	l.done++
	n := l.done
	// Calls still pending belong to the finished execution (execute waits
	// for cancelled calls only so long); their answers are dropped on
	// arrival.
	for id, c := range l.pending {
		delete(l.pending, id)
		c.stop()
		c.done(nil, nil, context.Canceled)
	}
	l.mu.Unlock()
	send(done)
	prep()
	l.collectWhenIdle(n)
}

func (l *childLoop) serveExec(ctx context.Context, cancel context.CancelCauseFunc, m execMsg, ts string, send func(doneMsg) bool, hooks execHooks) (done doneMsg) {
	defer func() {
		if v := recover(); v != nil {
			done = doneMsg{Error: internalError(fmt.Sprintf("worker panic: %v", v)), Dirty: true}
		}
	}()
	start := time.Now()
	// The watchdog covers compilation too: esbuild and goja's parser
	// allocate in proportion to what the model wrote.
	stop := proc.WatchHeap(m.Limits.MemoryBytes, l.idleBase.Load(), func(used uint64) {
		merr := memoryLimitError(m.Limits.MemoryBytes)
		cancel(merr)
		time.AfterFunc(memoryStopGrace, func() {
			if send(doneMsg{Error: merr, Dirty: true}) {
				fmt.Fprintf(os.Stderr, "sandbox worker: out of memory: %d bytes in use, still allocating after the interrupt\n", used)
				os.Exit(workerExitMemory)
			}
		})
	})
	// Compilation cannot be interrupted: past the timeout the worker
	// answers TIMEOUT and exits (the parent's hard deadline is the
	// backstop). The rest of the timeout is left for the script.
	var compiling atomic.Int32 // 0 compiling, 1 compiled, 2 timed out
	overdue := time.AfterFunc(m.Limits.Timeout, func() {
		if compiling.CompareAndSwap(0, 2) && send(doneMsg{Error: compileTimeoutError(m.Limits.Timeout), Dirty: true}) {
			os.Exit(workerExitTimeout)
		}
	})
	var key [32]byte
	copy(key[:], m.Key)
	prog, err := compile(source{key: key, ts: ts}, m.Limits.MaxCodeBytes)
	overdue.Stop()
	if !compiling.CompareAndSwap(0, 1) {
		select {} // the timer answered and exits the process
	}
	if err != nil {
		breached := stop()
		e := asSandboxError(err)
		if breached {
			e = memoryLimitError(m.Limits.MemoryBytes)
		}
		return doneMsg{Error: e, Dirty: breached}
	}
	hooks.spent = time.Since(start)
	hooks.entropy = m.Entropy
	// A second run that explains a failure (see diagnose.go) has a
	// watchdog of its own: running out of memory there costs the
	// explanation, not the first run's outcome.
	var breached, watched, secondDirty bool
	hooks.replay = func(run func(context.Context) bool) {
		breached, watched = stop(), true
		if breached {
			return
		}
		rctx, rcancel := context.WithCancelCause(ctx)
		defer rcancel(nil)
		rstop := proc.WatchHeap(m.Limits.MemoryBytes, l.idleBase.Load(), func(uint64) { rcancel(memoryLimitError(m.Limits.MemoryBytes)) })
		interrupted := run(rctx)
		secondDirty = rstop() || interrupted
	}
	res, err := runScript(ctx, prog, &relayHost{loop: l, funcs: m.Functions, free: m.Free, sub: m.Sub, explain: m.Explain, withhold: m.Withhold}, m.Limits, hooks)
	if !watched {
		breached = stop()
	}
	done.Dirty = secondDirty
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

// asSandboxError returns err as an *Error; anything else becomes an
// INTERNAL error whose detail is logged, not shown.
func asSandboxError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return internalError(err.Error())
}

func (l *childLoop) cancelRun() {
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

// marshalPlain is json.Marshal without HTML escaping: encoding/json
// escapes <, > and & even inside a json.RawMessage it re-encodes, so a
// result sent from a worker read "Promise\u003cT\u003e" where the same
// result in process reads "Promise<T>".
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func mustJSON(v any) []byte {
	b, err := marshalPlain(v)
	if err != nil {
		panic(err)
	}
	return b
}
