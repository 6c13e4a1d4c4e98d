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
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"

	"github.com/brakinglab/codemode-go/internal/jsonscan"
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
	site            string // the script's stack at the call
	origin          string // see callSiteOrigin
	index           int    // CallPosition.Index
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

	// explained caches the host's answers to explain, per question.
	explained map[string]string

	// arrayFrom names the host function each array result came from,
	// arrayProto is their prototype, and arrayReads the latest reads of
	// members they lack (see arrayread.go).
	arrayFrom  map[*goja.Object]string
	arrayProto *goja.Object
	arrayReads []arrayRead
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

func runScript(ctx context.Context, prog *compiled, host Host, lim Limits, hooks execHooks) (res *Result, err error) {
	start := time.Now()
	lim = lim.withDefaults()
	e := hooks.prepared
	if e == nil {
		var perr error
		if e, perr = newExecution(); perr != nil {
			return nil, internalError("setting up the runtime failed: " + perr.Error())
		}
	}
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
			select {
			case r = <-e.results:
				e.ready = e.order.take(e.pending[r.id].index, r)
			case <-e.stopped:
			}
			continue
		}
		{
			if ent != nil {
				ent.delivered(e.pending[r.id].index)
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

// mainValue converts the value the main function returned to JSON, now:
// continuations of unawaited calls may still change the objects.
func (e *execution) mainValue(v goja.Value) *mainOutcome {
	js, err := e.valueJSON(v)
	if err != nil {
		return &mainOutcome{err: err}
	}
	return &mainOutcome{js: js}
}

// markUnawaited records the calls in flight as the main function settles.
func (e *execution) markUnawaited() {
	e.mainDone = true
	ids := make([]int, 0, len(e.pending))
	for id := range e.pending {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		pc := e.pending[id]
		e.unawaited = append(e.unawaited, unawaitedCall{id: id, site: pc.site, origin: pc.origin})
		if pc.origin != "" {
			e.lastOrigin = pc.origin
		}
	}
}

// complete ends an execution whose main function settled with main.
func (e *execution) complete(start time.Time, top *goja.Promise, main *mainOutcome) (*Result, error) {
	if main.err != nil {
		err := *main.err
		err.CallsUsed = e.callsMade()
		return e.result(start), &err
	}
	e.warnUnhandled(top)
	res := e.result(start)
	res.Value = e.out.value(main.js)
	res.Truncated = e.out.truncated
	res.Logs = e.out.logs
	return res, nil
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

// stop ends the execution with an *Error of kind and message. It is safe to
// call from any goroutine and any number of times (the first call wins)
// and does nothing once the execution has returned.
func (e *execution) stop(kind Kind, message string) {
	e.stopOnce.Do(func() {
		e.stopErr = &Error{Kind: kind, Message: message}
		if e.vm != nil {
			e.vm.Interrupt(e.stopErr)
		}
		close(e.stopped)
	})
}

// finish makes later stops no-ops and releases the calls' context.
// result has already waited for the calls in flight.
func (e *execution) finish() {
	e.stop(KindCancelled, "the execution has ended")
	e.cancelCall()
}

// drain cancels the contexts of host calls still in flight and waits up
// to hostGrace for them to return, recording each outcome without
// running any JavaScript. A call started by the host is never reported
// before the host has returned from it, unless it ignores cancellation
// for longer than hostGrace.
func (e *execution) drain() {
	// Answers held for their turn in a recorded order arrived: record them.
	for _, r := range append(e.ready, e.order.heldResults()...) {
		e.record(r)
	}
	e.ready, e.order = nil, nil
	if len(e.pending) == 0 {
		return
	}
	e.cancelCall()
	t := time.NewTimer(hostGrace)
	defer t.Stop()
	for len(e.pending) > 0 {
		select {
		case r := <-e.results:
			e.record(r)
		case <-t.C:
			return
		}
	}
}

// result is the Result so far: logs, calls and warnings, no value. It
// first waits for the calls still in flight (see drain).
func (e *execution) result(start time.Time) *Result {
	e.drain()
	calls := make([]CallRecord, len(e.calls))
	copy(calls, e.calls)
	for i := range calls {
		if calls[i].Outcome == "" {
			calls[i].Outcome = OutcomeUnknown
			calls[i].Error = "the host had not returned when the execution ended, so whether the call took effect is unknown; check before repeating it"
		}
	}
	warnings := append([]Warning(nil), e.warnings...)
	if e.droppedWarnings > 0 {
		warnings = append(warnings, Warning{Kind: WarningHost, Message: fmt.Sprintf("%d more warnings from host functions were left out; fix those above and run again", e.droppedWarnings)})
	}
	for _, u := range e.unawaited {
		warnings = append(warnings, e.unawaitedWarning(u, calls[u.id]))
	}
	return &Result{Logs: e.out.logs, Calls: calls, Duration: time.Since(start), Truncated: e.out.truncated, Warnings: warnings}
}

// unawaitedWarning tells the model about a call its script did not await.
func (e *execution) unawaitedWarning(u unawaitedCall, rec CallRecord) Warning {
	line, col := e.sitePosition(u.site)
	var what string
	switch rec.Outcome {
	case OutcomeOK:
		what = "it finished afterwards and succeeded"
	case OutcomeError:
		what = "it finished afterwards with an error: " + cut(rec.Error, 200)
	case OutcomeCancelled:
		what = "it was cancelled at the end of the execution and returned without effect: " + cut(rec.Error, 200)
	case OutcomeUnknown:
		if rec.Error != "" {
			what = "it finished afterwards, and whether it took effect is unknown: " + cut(rec.Error, 200)
			break
		}
		fallthrough
	default:
		what = "it had not finished when the execution ended; whether it took effect is unknown"
	}
	w := Warning{Kind: WarningUnawaited, Function: rec.Name, Line: line, Column: col, Outcome: rec.Outcome}
	switch {
	case e.mainFailed:
		// Awaited or not, the call was left behind by the script's error.
		w.Message = rec.Name + " was still running when the script failed with the error above; " + what +
			". This is not a missing await: fix the error and run again."
	case u.origin != "":
		w.Line, w.Column = e.sitePosition("    at " + u.origin)
		w.Message = fmt.Sprintf("the async function called here was not awaited, so the script ended before it finished: its call to %s (line %d) ran afterwards; %s. Await that function's call, or return its promise; for an async arrow function called on the spot, write await (async () => { … })().", rec.Name, line, what)
	default:
		w.Message = rec.Name + " was not awaited: the script ended before the call finished; " + what +
			". Await it, or collect the promises and `await Promise.all(...)`."
	}
	return w
}

// failure completes err with the number of host calls made.
func (e *execution) failure(err *Error) *Error {
	c := *err
	c.CallsUsed = e.callsMade()
	return &c
}

// callsMade counts the calls that reached the host.
func (e *execution) callsMade() int { return e.made }

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
	return e.bindHost()
}

// newJSError constructs an Error (or TypeError) with the original
// constructor, which the script may since have replaced.
func (e *execution) newJSError(ctor *goja.Object, message string) *goja.Object {
	o, err := e.vm.New(ctor, e.vm.ToValue(message))
	if err != nil {
		panic(err)
	}
	return o
}

// throwTypeError raises a TypeError in the script from a native function.
func (e *execution) throwTypeError(format string, args ...any) {
	e.throwError(e.typeErrCtor, format, args...)
}

// throwError raises an error made with ctor in the script from a native
// function.
func (e *execution) throwError(ctor *goja.Object, format string, args ...any) {
	panic(e.newJSError(ctor, fmt.Sprintf(format, args...)))
}

// scriptError converts an error from the runtime into an *Error.
func (e *execution) scriptError(err error) *Error {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if se, ok := ie.Value().(*Error); ok {
			return e.failure(se)
		}
		return e.failure(internalError(fmt.Sprint(ie.Value())))
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		// Stack depth is memory: deep recursion through native callbacks
		// ([1].map(f)) would otherwise exhaust the Go stack.
		out := &Error{Kind: KindMemoryLimit, Message: fmt.Sprintf(
			"maximum call stack size exceeded (%d nested calls). Use a loop or an explicit stack instead of deep recursion.", maxCallStackSize)}
		e.prog.setPosition(out, so.Stack())
		return e.failure(out)
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		out := e.rejection(ex.Value())
		if out.Line == 0 {
			e.prog.setPosition(out, ex.Stack())
		}
		return out
	}
	return e.failure(internalError(err.Error()))
}

// internalError is the model-safe error for a runtime failure the sandbox
// did not expect: Go error text can name files, addresses or internals and
// tells the model nothing it can act on, so the detail goes to the log
// under a reference that the message repeats. runScript has no logger of its
// own, hence slog.Default: the host's in process, the worker's stderr in a
// worker process.
func internalError(detail string) *Error {
	ref := strings.ToLower(rand.Text()[:10])
	slog.Default().Error("sandbox: internal error", "ref", ref, "detail", detail)
	return &Error{Kind: KindInternal, Message: "the sandbox failed internally (ref " + ref + "); the script may be fine, try again"}
}

// rejection converts the reason the script failed with into an *Error.
func (e *execution) rejection(reason goja.Value) *Error {
	out := &Error{Kind: KindRuntime}
	obj, isObj := reason.(*goja.Object)
	if isObj && obj.ClassName() == "Error" {
		out.Message = errorMessage(obj) + e.namespaceHint(obj)
		if h := e.arrayReadHint(); h != "" && valueString(obj.Get("name")) == "TypeError" && strings.Contains(out.Message, "undefined") {
			out.Message += ". " + h
		}
		if st := obj.Get("stack"); st != nil && !goja.IsUndefined(st) {
			out.Stack = e.prog.cleanStack(st.String())
			out.Line, out.Column = firstPosition(out.Stack)
		}
		out.Data = e.errorData(obj)
		if e.callLimit && valueString(obj.Get("code")) == string(KindCallLimit) {
			out.Kind = KindCallLimit
			out.Message = valueString(obj.Get("message"))
		}
	} else {
		out.Message = "Uncaught " + e.formatValue(reason)
	}
	return e.failure(out)
}

// missingGlobals says, for Node and browser globals the sandbox does not
// have, what it offers instead and why.
var missingGlobals = func() map[string]string {
	timers := "the sandbox has no timers: a run is capped at {limit} and only waits for host calls, so there is nothing to wait for between them. Await host calls directly, or run several together with await Promise.all([...])"
	modules := "the sandbox has no modules and nothing to install: data comes from the host's functions{ns}, and everything else from the standard JavaScript built-ins (Array, Math, JSON, Date, Map, …)"
	network := "the sandbox has no network access: data comes only from the host's functions{ns}"
	browser := "the sandbox is not a browser: there is no page, window or DOM, only the host's functions and the standard JavaScript built-ins"
	m := map[string]string{
		"Buffer":  "the sandbox is not Node.js and has no Buffer: host functions send and return JSON, so work with strings, arrays and numbers (Uint8Array exists for bytes)",
		"process": "the sandbox is not Node.js and has no process: there are no environment variables, files or arguments, and a script ends by returning a value. Data comes from the host's functions{ns}",
		"global":  "the sandbox is not Node.js: use globalThis",
	}
	for _, n := range []string{"setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "clearImmediate", "queueMicrotask", "requestAnimationFrame"} {
		m[n] = timers
	}
	for _, n := range []string{"require", "module", "exports", "__dirname", "__filename"} {
		m[n] = modules
	}
	for _, n := range []string{"fetch", "XMLHttpRequest", "WebSocket", "Request", "Response", "Headers"} {
		m[n] = network
	}
	for _, n := range []string{"window", "document", "navigator", "localStorage", "sessionStorage", "location", "alert"} {
		m[n] = browser
	}
	return m
}()

// namespaceHint explains "ReferenceError: X is not defined": what the
// sandbox offers instead of a Node or browser global, or the namespace X
// is close to.
func (e *execution) namespaceHint(o *goja.Object) string {
	if valueString(o.Get("name")) != "ReferenceError" {
		return ""
	}
	name, ok := strings.CutSuffix(valueString(o.Get("message")), " is not defined")
	if !ok {
		return ""
	}
	spaces := e.dataNamespaces()
	if why, known := missingGlobals[name]; known {
		where := ""
		if len(spaces) > 0 {
			where = ", on " + strings.Join(spaces, " and ") + " (const rows = await " + spaces[0] + ".someFunction({ … }))"
		}
		return ": " + strings.NewReplacer("{limit}", e.lim.Timeout.String(), "{ns}", where).Replace(why) + "."
	}
	var all []string
	for ns := range e.host.Functions() {
		all = append(all, ns)
	}
	if len(all) == 0 {
		return ""
	}
	sort.Strings(all)
	if h := suggest(name, all); strings.HasPrefix(h, "Did you mean") {
		return ". " + h
	}
	return ". Host functions are in: " + strings.Join(all, ", ") + "."
}

// dataNamespaces lists, sorted, the host's namespaces whose functions are
// not free (FreeHost): where a script's data comes from. When every
// namespace is free it lists them all.
func (e *execution) dataNamespaces() []string {
	free := freeNamespaces(e.host)
	var data, all []string
	for ns := range e.host.Functions() {
		all = append(all, ns)
		if !free[ns] {
			data = append(data, ns)
		}
	}
	if len(data) == 0 {
		data = all
	}
	sort.Strings(data)
	return data
}

// errorData returns the own properties of an Error other than message and
// stack as a JSON object, or nil.
func (e *execution) errorData(o *goja.Object) json.RawMessage {
	extra := e.vm.NewObject()
	n := 0
	for _, k := range o.Keys() {
		if k != "message" && k != "stack" {
			_ = extra.Set(k, o.Get(k))
			n++
		}
	}
	if n == 0 {
		return nil
	}
	s, err := e.stringify(goja.Undefined(), extra, e.jsonReplacer())
	if err != nil || goja.IsUndefined(s) {
		return nil
	}
	return json.RawMessage(s.String())
}

// valueJSON converts the script's return value to JSON text.
func (e *execution) valueJSON(v goja.Value) (string, *Error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return "null", nil
	}
	if _, ok := goja.AssertFunction(v); ok {
		return "", e.failure(&Error{Kind: KindRuntime, Message: "the script returned a function; return data (an object, array, string, number, boolean or null) instead"})
	}
	s, err := e.stringify(goja.Undefined(), v)
	if err != nil {
		var ex *goja.Exception
		if errors.As(err, &ex) && strings.Contains(errorMessage(ex.Value()), "circular") {
			if hint := e.cycleHint(v, "return value"); hint != "" {
				return "", e.failure(&Error{Kind: KindRuntime, Message: "the return value has a circular reference: " + hint +
					". JSON cannot hold a cycle: remove circular references, copying the fields you need (e.g. { lapMs: lap.lapMs }) instead of returning objects that point at each other."})
			}
		}
		if errors.As(err, &ex) {
			return "", e.failure(&Error{Kind: KindRuntime, Message: "the return value cannot be converted to JSON (" +
				strings.TrimSpace(errorMessage(ex.Value())) + "). Return plain data: objects, arrays, strings, numbers, booleans, null; convert BigInt with String(x) and remove circular references."})
		}
		return "", e.scriptError(err)
	}
	if goja.IsUndefined(s) {
		return "null", nil
	}
	if d := jsonscan.Depth([]byte(s.String())); d > maxOutputDepth {
		return "", e.failure(&Error{Kind: KindRuntime, Message: fmt.Sprintf(
			"the return value is nested %d levels deep, over the %d-level limit. Return flatter data.", d, maxOutputDepth)})
	}
	e.warnLossyValue(v, s.String())
	return s.String(), nil
}

// maxUnhandledWarnings bounds the warnings about unhandled rejections.
const maxUnhandledWarnings = 5

// trackRejection records promises rejected without a handler and forgets
// them when a handler is attached later.
func (e *execution) trackRejection(p *goja.Promise, op goja.PromiseRejectionOperation) {
	switch op {
	case goja.PromiseRejectionReject:
		// Bounded: the list keeps promises alive, and a script may reject
		// millions of them.
		if len(e.unhandled) < 4*maxUnhandledWarnings {
			e.unhandled = append(e.unhandled, p)
		}
	case goja.PromiseRejectionHandle:
		for i, q := range e.unhandled {
			if q == p {
				e.unhandled = append(e.unhandled[:i], e.unhandled[i+1:]...)
				break
			}
		}
	}
}

// warnUnhandled logs a warning for each promise that failed with nothing
// awaiting it, typically a host call made without await, so the model
// learns about a failure it would otherwise never see.
func (e *execution) warnUnhandled(top *goja.Promise) {
	n := 0
	for _, p := range e.unhandled {
		if p == top || p.State() != goja.PromiseStateRejected {
			continue
		}
		if n++; n > maxUnhandledWarnings {
			break
		}
		e.out.log("warn", "Unhandled promise rejection: "+strings.TrimSpace(errorMessage(p.Result()))+". A promise failed and nothing awaited it; await it or add .catch().")
	}
}

// formatValue renders a value like console.log does, for error messages.
func (e *execution) formatValue(v goja.Value) (s string) {
	defer func() {
		if recover() != nil {
			s = "(unprintable value)"
		}
	}()
	return e.formatArg(v)
}

// errorMessage is "Name: message" for an Error object, else the value as a
// string.
func errorMessage(v goja.Value) string {
	if o, ok := v.(*goja.Object); ok && o.ClassName() == "Error" {
		if n := valueString(o.Get("name")); n != "" {
			return n + ": " + valueString(o.Get("message"))
		}
		return valueString(o.Get("message"))
	}
	return valueString(v)
}

func valueString(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return ""
	}
	return v.String()
}
