package sandbox

// Warnings about what the script left running: host calls it did not await,
// and promises that failed with nothing awaiting them.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dop251/goja"
)

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
