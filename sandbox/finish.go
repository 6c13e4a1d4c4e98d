package sandbox

// How an execution ends: stops, draining the calls still in flight, and the
// Result or *Error it returns.

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dop251/goja"

	"github.com/brakinglab/codemode-go/internal/jsonscan"
)

// mainValue converts the value the main function returned to JSON, now:
// continuations of unawaited calls may still change the objects.
func (e *execution) mainValue(v goja.Value) *mainOutcome {
	js, err := e.valueJSON(v)
	if err != nil {
		return &mainOutcome{err: err}
	}
	return &mainOutcome{js: js}
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
	for _, r := range append(e.ready, e.order.release()...) {
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

// failure completes err with the number of host calls made.
func (e *execution) failure(err *Error) *Error {
	c := *err
	c.CallsUsed = e.callsMade()
	return &c
}

// callsMade counts the calls that reached the host.
func (e *execution) callsMade() int { return e.made }

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
