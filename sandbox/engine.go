package sandbox

// The engine: what runs a compiled program, shared by the in-process side
// (inprocess.go) and the child side (child.go, in a worker process).
//
//	runScript(ctx, prog, host, lim, hooks) (*Result, error)
//
// runs one compiled program in a fresh goja runtime on the calling
// goroutine and returns when the script's top-level promise settles, a
// limit is hit, or ctx ends. It enforces every limit except memory itself:
// time (vm.Interrupt at lim.Timeout), calls, output. It never panics.
//
// A worker process compiles prog itself (compile, under the execution's
// deadline; the parent only sends the source), passes a Host that relays calls
// over its pipe, and stops a run from its memory watchdog by cancelling ctx
// with an *Error cause (context.WithCancelCause); runScript then returns that
// *Error with the logs and calls made so far. hooks.prepared
// passes a runtime made ahead by newExecution, used by this execution only;
// hooks.waiting tells a worker when the execution idles on host calls, the
// time it makes the next runtime. The Result and *Error are
// JSON-serialisable so they can cross the pipe unchanged. Builtins that
// ignore vm.Interrupt (a huge indexOf, a single giant allocation) are the
// worker's business: the parent's hard deadline at lim.Timeout+1s and the
// kernel memory cap.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
)

// maxCallStackSize bounds JavaScript recursion. Deeper recursion ends the
// execution with MEMORY_LIMIT (goja's StackOverflowError cannot be caught)
// instead of a Go stack overflow that kills the process.
const maxCallStackSize = 1000

// hostGrace is how long an ended execution waits, after cancelling the
// contexts of host calls still in flight, for them to return so their
// outcome is known. A host that ignores cancellation delays Run by at most
// this much, and its call is reported as OutcomeUnknown. It stays well
// under hardDeadlineGrace, so a worker never dies waiting for its calls.
const hostGrace = 500 * time.Millisecond

// execHooks lets the caller of runScript supply a prepared runtime and
// observe and stop an execution.
type execHooks struct {
	// prepared, if set, is a runtime from newExecution that runScript uses
	// instead of making one. It must come straight from newExecution and
	// is used by this one execution only: a runtime is never reused.
	prepared *execution
	// waiting, if set, is called on the executing goroutine each time the
	// execution is about to wait for host calls: the goroutine is idle
	// until one returns.
	waiting func()
	// spent is the part of lim.Timeout already used before the script
	// started (compiling it); the script gets the rest.
	spent time.Duration
	// entropy, if set, records the clock and Math.random into
	// Result.Entropy, replaying these values first (RunOptions.Entropy).
	entropy *Entropy
	// replay, if set, is given the second run that explains a failure
	// (see diagnose.go) to run, so that a worker can watch its memory;
	// run reports whether the second run was interrupted. Unset,
	// runScript runs it itself.
	replay func(run func(ctx context.Context) (interrupted bool))
}

// callResult is a finished host call, posted back to the loop goroutine.
type callResult struct {
	id       int
	out      json.RawMessage
	err      error
	warnings []string // from Warn
	dur      time.Duration
	// afterCancel: the call's context had been cancelled when the host
	// returned.
	afterCancel bool
}

// unawaitedCall is a host call in flight when the script's main function
// settled, or started after that.
type unawaitedCall struct {
	id     int
	site   string
	origin string // where the unawaited async function was called (callSiteOrigin)
}

// mainOutcome is how the script's main function settled: its return value
// as JSON, or the error it failed with.
type mainOutcome struct {
	js  string
	err *Error
}

// pendingCall is a host call in flight.
type pendingCall struct {
	resolve, reject func(any) error
	site            string     // the script's stack at the call
	origin          string     // see callSiteOrigin
	index           int        // CallPosition.Index
	args            goja.Value // the script's argument, for resultArgsWarning
	subSite         string     // "    at sub:KEY:L:C\n" when a sub-program made the call
}

// execution is the state of one run of runScript. Everything except the
// stop machinery and the results channel is owned by the loop goroutine.
type execution struct {
	prog *compiled
	vm   *goja.Runtime
	host Host
	lim  Limits

	callCtx    context.Context
	cancelCall context.CancelFunc
	wg         sync.WaitGroup
	results    chan callResult
	// order replays Entropy.Order (nil: answers are delivered as they
	// come); ready holds answers whose turn has come, delivered one per
	// turn of the loop.
	order     *orderReplay
	ready     []callResult
	answered  int // host answers delivered to the script (CallPosition.Answered)
	pending   map[int]pendingCall
	calls     []CallRecord
	made      int  // calls that reached the host
	callLimit bool // a call was refused for the call limit
	// refused counts calls refused for the call limit: a script that
	// catches the refusal and calls again is looping (see hostFunc).
	refused int

	// sub holds the sub-programs this execution has run.
	sub subState

	// explained caches the host's answers to explain, per question.
	explained map[string]string

	// origins keeps the latest host results and the reads that missed
	// them (see origins.go), in a second run that explains a failure
	// (marking; see diagnose.go). log, in a first run, keeps what host
	// calls answered for such a second run; it points at logBuf.
	origins origins
	marking bool
	log     *callLog
	logBuf  callLog
	// waited is how long the loop waited for host calls to answer.
	waited time.Duration
	// collectionProtos are Map.prototype and Set.prototype, once needed.
	collectionProtos [2]*goja.Object

	out output

	// promiseFrom names the host function each host call's Promise came
	// from, for the missing-await error (see preludeJS).
	promiseFrom map[*goja.Object]string

	// mainDone is set when the script's main function has settled; calls
	// in flight then, or started later, are unawaited.
	mainDone bool
	// inProgram: the program itself is running (it starts the main
	// function), so the outermost frame of a stack is the program's.
	inProgram bool
	// mainFailed: the main function failed with the error of a host call
	// (or the call limit's refusal), so calls still in flight were left by
	// that error, as Promise.all leaves its other calls, not by a missing
	// await. callErrors holds those errors: one per call at most.
	mainFailed bool
	callErrors map[*goja.Object]struct{}
	// lastOrigin is the origin of the last call in flight when the main
	// function settled, for calls its continuations make later.
	lastOrigin string
	unawaited  []unawaitedCall
	warnings   []Warning // from Warn, at most maxHostWarnings
	// droppedWarnings counts host warnings over maxHostWarnings.
	droppedWarnings int

	// unhandled holds promises rejected with no handler, in order; see
	// warnUnhandled.
	unhandled []*goja.Promise

	stopOnce sync.Once
	stopped  chan struct{}
	stopErr  *Error

	// helpers from the prelude, captured before the script runs.
	stringify              goja.Callable
	errorCtor, typeErrCtor *goja.Object
	rangeErrCtor           *goja.Object
}

func runScript(ctx context.Context, prog *compiled, host Host, lim Limits, hooks execHooks) (*Result, error) {
	start := time.Now()
	e := hooks.prepared
	if e == nil {
		var perr error
		if e, perr = newExecution(); perr != nil {
			return nil, internalError("setting up the runtime failed: " + perr.Error())
		}
		hooks.prepared = e
	}
	if !originsOff {
		e.log = &e.logBuf
		e.log.reset()
	}
	e.marking = markFirst
	res, err := runOnce(ctx, prog, host, lim, hooks)
	d := planDiagnosis(e, res, err, time.Since(start)+hooks.spent)
	if d == nil {
		return res, err
	}
	return d.run(ctx, hooks.replay, res, err)
}

// runOnce is one run of runScript, on hooks.prepared.
func runOnce(ctx context.Context, prog *compiled, host Host, lim Limits, hooks execHooks) (res *Result, err error) {
	start := time.Now()
	lim = lim.withDefaults()
	e := hooks.prepared
	e.prog, e.host, e.lim = prog, host, lim
	var ent *entropySource
	if hooks.entropy != nil {
		ent = newEntropySource(hooks.entropy)
		e.vm.SetTimeSource(ent.now)
		e.vm.SetRandSource(ent.random)
		e.order = newOrderReplay(hooks.entropy.Order)
	}
	e.results = make(chan callResult, lim.MaxCalls)
	e.out = output{max: lim.MaxOutputBytes}
	// Host calls see when the execution ends at the latest (its hard
	// deadline: the time limit, counted from before compiling, plus the
	// grace), so a database driver can bound its own work. The time limit
	// itself cancels them first: a deadline at the limit would race it and
	// fail calls before the script is stopped with TIMEOUT.
	e.callCtx, e.cancelCall = context.WithDeadline(context.WithoutCancel(ctx), start.Add(lim.Timeout-hooks.spent+hardDeadlineGrace))
	defer func() {
		if r := recover(); r != nil {
			ie := internalError(fmt.Sprintf("panic: %v\n%s", r, debug.Stack()))
			ie.CallsUsed = e.callsMade()
			res, err = e.result(start), ie
		}
		e.finish()
		e.out.fit(res, err)
		if res != nil {
			res.Duration = time.Since(start) + hooks.spent
			res.Compile = hooks.spent
			if ent != nil {
				res.Entropy = ent.record()
			}
		}
	}()

	timer := time.AfterFunc(max(lim.Timeout-hooks.spent, time.Millisecond), func() {
		e.stop(KindTimeout, fmt.Sprintf("the script ran longer than the %s time limit and was stopped. Make fewer or smaller host calls, avoid long loops, or split the work.", lim.Timeout))
	})
	defer timer.Stop()
	stopWatch := context.AfterFunc(ctx, func() {
		// A worker's memory watchdog cancels with an *Error as the cause.
		var cause *Error
		if errors.As(context.Cause(ctx), &cause) {
			e.stop(cause.Kind, cause.Message)
			return
		}
		ce := cancelledError(ctx)
		e.stop(ce.Kind, ce.Message)
	})
	defer stopWatch()
	if err := e.setup(); err != nil {
		var se *Error
		if !errors.As(err, &se) {
			se = internalError("setting up the runtime failed: " + err.Error())
		}
		return nil, se
	}

	e.inProgram = true
	v, runErr := e.vm.RunProgram(prog.program)
	e.inProgram = false
	if runErr != nil {
		return e.result(start), e.scriptError(runErr)
	}
	p, ok := v.Export().(*goja.Promise)
	if !ok {
		return e.result(start), &Error{Kind: KindInternal, Message: "the program did not produce a promise"}
	}
	// The loop runs until the main function has settled and no host call
	// is in flight: a call the script did not await still runs to its end
	// (and its continuations run, as in Node), within the time limit, so
	// that every reported outcome is what the host did.
	var main *mainOutcome
	for {
		if main == nil {
			switch p.State() {
			case goja.PromiseStateFulfilled:
				main = e.mainValue(p.Result())
			case goja.PromiseStateRejected:
				main = &mainOutcome{err: e.rejection(p.Result())}
				o, _ := p.Result().(*goja.Object)
				_, e.mainFailed = e.callErrors[o]
			}
			if main != nil {
				e.markUnawaited()
			}
		}
		if main != nil && len(e.pending) == 0 {
			return e.complete(start, p, main)
		}
		select {
		case <-e.stopped:
			if main != nil && e.stopErr.Kind == KindTimeout {
				// The script itself finished; only calls it left behind
				// ran out of time, and their warnings say so.
				return e.complete(start, p, main)
			}
			return e.result(start), e.failure(e.stopErr)
		default:
		}
		if main == nil && len(e.pending) == 0 {
			return e.result(start), e.failure(&Error{Kind: KindRuntime, Message: "the script is awaiting a promise that can never settle: no host call is in flight and there are no timers. Make sure every promise you create is resolved, and await host calls directly."})
		}
		var r callResult
		if len(e.ready) > 0 {
			r, e.ready = e.ready[0], e.ready[1:]
		} else {
			if e.order.stalled(len(e.pending)) {
				// The next recorded answer is of a call this run never
				// made: it has left the record, so answers flow as they
				// come.
				e.ready = e.order.release()
				e.order = nil
				continue
			}
			if hooks.waiting != nil {
				hooks.waiting()
			}
			waitStart := time.Now()
			select {
			case r = <-e.results:
				e.ready = e.order.take(e.pending[r.id].index, r)
			case <-e.stopped:
			}
			e.waited += time.Since(waitStart)
			continue
		}
		{
			if ent != nil {
				ent.delivered(e.pending[r.id].index)
			}
			if e.log != nil {
				e.log.answer(e.pending[r.id].index, r)
			}
			e.answered++
			if err := e.settle(r); err != nil {
				se := e.scriptError(err)
				select {
				case <-e.stopped:
					continue // the stop is reported above
				default:
				}
				if main != nil {
					continue // a continuation of an unawaited call failed
				}
				return e.result(start), se
			}
		}
	}
}

// promiseOrigin is the prelude's promiseOrigin: the host function that
// returned the Promise, or undefined.
func (e *execution) promiseOrigin(call goja.FunctionCall) goja.Value {
	if o, ok := call.Argument(0).(*goja.Object); ok {
		if name, found := e.promiseFrom[o]; found {
			return e.vm.ToValue(name)
		}
	}
	return goja.Undefined()
}

// newExecution returns an execution on a fresh runtime, hardened and with
// console bound: everything that depends on neither the program, the host
// nor the limits. A worker makes the next one while it is idle, so a
// request starts on a ready runtime; each serves exactly one execution.
func newExecution() (e *execution, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, err = nil, fmt.Errorf("%v", r)
		}
	}()
	boundRegexps()
	e = &execution{
		vm:      goja.New(),
		pending: make(map[int]pendingCall),
		stopped: make(chan struct{}),
	}
	vm := e.vm
	vm.SetParserOptions(parser.WithDisableSourceMaps)
	vm.SetMaxCallStackSize(maxCallStackSize)
	vm.SetPromiseRejectionTracker(e.trackRejection)
	v, err := vm.RunProgram(prelude())
	if err != nil {
		return nil, fmt.Errorf("prelude: %w", err)
	}
	factory, ok := goja.AssertFunction(v)
	if !ok {
		return nil, errors.New("prelude is not a function")
	}
	if v, err = factory(goja.Undefined(), vm.ToValue(e.promiseOrigin)); err != nil {
		return nil, fmt.Errorf("prelude: %w", err)
	}
	h := v.ToObject(vm)
	if e.stringify, ok = goja.AssertFunction(h.Get("stringify")); !ok {
		return nil, errors.New("prelude helper stringify missing")
	}
	e.errorCtor = h.Get("Error").ToObject(vm)
	e.typeErrCtor = h.Get("TypeError").ToObject(vm)
	e.rangeErrCtor = h.Get("RangeError").ToObject(vm)
	if err := e.wrapRegExpExec(); err != nil {
		return nil, err
	}
	if err := e.bindConsole(); err != nil {
		return nil, err
	}
	return e, nil
}

// setup does the per-program part of preparing the runtime: the symbol
// polyfill if the program needs it, and the host's namespaces.
func (e *execution) setup() error {
	if strings.Contains(e.prog.js, "Symbol") {
		if _, err := e.vm.RunProgram(symbolsPolyfill()); err != nil {
			return e.scriptError(err)
		}
	}
	if mayAllocateBuffers(e.prog.js) {
		if err := e.guardAllocations(); err != nil {
			return internalError("setting up the allocation guard failed: " + err.Error())
		}
	}
	return e.bindHost()
}
