package sandbox

// Explaining a failure by running the script again. Which host call a
// misread value came from (origins.go) is known only if results are
// marked as they arrive, and marking costs every execution something.
// So an execution runs unmarked and keeps, at the price of a slice slot
// per call, what its host calls answered. Only when it ends in an error
// or a warning that a value's origin would explain (a TypeError, an
// undefined argument, "[object Object]" or a result passed whole) is the
// script run a second time, marked, on a fresh runtime, with every host
// call, free call and sub-program answered from that record: the host is
// never called twice. The second run's wording replaces the first's only
// where both runs ended the same way (the same kind of error at the same
// position, the same warnings at the same calls); a script whose second
// run departs from the first (another call, other arguments) keeps the
// first run's plain messages. Everything else reported (logs, calls, the
// value) is the first run's.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// callLog is what an execution's host calls answered, kept for a second
// run (see above). Only the loop goroutine writes it.
type callLog struct {
	calls []loggedCall // counted calls, by CallPosition.Index
	free  []loggedCall // free calls, in the order made
	subs  []loggedSub  // sub-program questions, in the order asked
	order []int        // CallPosition.Index of each answer, as delivered
	// wanted: a message of this run would name a value's origin if
	// results had been marked.
	wanted bool
	// The first calls and answers are kept here, in the execution
	// itself, so that a script with few calls allocates nothing for them.
	callsBuf [logInline]loggedCall
	orderBuf [logInline]int
}

// logInline is how many calls a log keeps without allocating.
const logInline = 4

// reset readies l for a first run.
func (l *callLog) reset() {
	l.calls, l.order = l.callsBuf[:0], l.orderBuf[:0]
}

// loggedCall is one host call and its answer.
type loggedCall struct {
	name     string
	args     json.RawMessage
	out      json.RawMessage
	err      error
	warnings []string
	answered bool
}

// loggedSub is one sub-program question and its answer.
type loggedSub struct {
	name string
	args []byte
	sp   *Subprogram
	err  error
}

// wantOrigins notes that this run produced a message that would name a
// value's origin if results had been marked.
func (e *execution) wantOrigins() {
	if e.log != nil {
		e.log.wanted = true
	}
}

// wantOriginsOfResults is wantOrigins for a warning at a host call, which
// only a result the script already had can explain: none, and a second
// run would be for nothing.
func (e *execution) wantOriginsOfResults() {
	if e.log != nil && (e.answered > 0 || len(e.log.free) > 0 || len(e.log.subs) > 0) {
		e.log.wanted = true
	}
}

// markFirst marks a first run's results too, for tests of the marking
// itself, which otherwise only a second run does. A worker process does
// not see it.
var markFirst bool

// secondRuns counts second runs in this process, for tests.
var secondRuns atomic.Int64

// minReplay is the least time a second run is given; with less left
// before the time limit, the first run's messages stand.
const minReplay = 20 * time.Millisecond

// diagnosis is a second run of a script, planned after the first.
type diagnosis struct {
	prog    *compiled
	host    Host
	lim     Limits
	log     callLog // the calls, a copy that keeps neither the first run's execution nor its runtime alive
	entropy *Entropy
}

// planDiagnosis returns the second run the first one (e, which ended
// with res and err having used elapsed of the time limit) calls for, or
// nil: when it wants no origin, made no host call, or the rest of the
// time limit could not hold a run as long as the first took without its
// waits for host calls, which a second run answers at once.
func planDiagnosis(e *execution, res *Result, err error, elapsed time.Duration) *diagnosis {
	if e.log == nil || !e.log.wanted || res == nil { // no log: originsOff
		return nil
	}
	if len(e.log.calls)+len(e.log.free)+len(e.log.subs) == 0 {
		return nil
	}
	var se *Error
	if err != nil && (!errors.As(err, &se) || se.Kind != KindRuntime) {
		return nil
	}
	left := e.lim.Timeout - elapsed
	if left < minReplay || left < elapsed-e.waited {
		return nil
	}
	lim := e.lim
	lim.Timeout = left
	ent := &Entropy{Order: slices.Clone(e.log.order)}
	if res.Entropy != nil {
		ent.Times, ent.Random = res.Entropy.Times, res.Entropy.Random
	}
	return &diagnosis{prog: e.prog, host: e.host, lim: lim, entropy: ent,
		log: callLog{calls: slices.Clone(e.log.calls), free: e.log.free, subs: e.log.subs}}
}

// run runs the second run through replay (execHooks.replay) if set, and
// returns res and err as explain leaves them. It is a function of its own
// so that runScript's res and err, which the closure captures, stay on
// its stack when no second run is planned.
func (d *diagnosis) run(ctx context.Context, replay func(func(context.Context) bool), res *Result, err error) (*Result, error) {
	second := func(ctx context.Context) (interrupted bool) {
		res, err, interrupted = d.explain(ctx, res, err)
		return interrupted
	}
	if replay != nil {
		replay(second)
	} else {
		second(ctx)
	}
	return res, err
}

// explain runs the script again, marked and answered from the log, and
// returns res and err with the second run's wording where the runs
// agree. interrupted reports that the second run was stopped (its time
// or ctx ended), which can leave a runtime's builtins half-way.
func (d *diagnosis) explain(ctx context.Context, res *Result, err error) (_ *Result, _ error, interrupted bool) {
	secondRuns.Add(1)
	e2, perr := newExecution()
	if perr != nil {
		return res, err, false
	}
	e2.marking = true
	rh := &replayHost{inner: d.host, log: &d.log}
	res2, err2 := runOnce(ctx, d.prog, rh, d.lim, execHooks{prepared: e2, entropy: d.entropy})
	var se2 *Error
	if errors.As(err2, &se2) && se2.Kind != KindRuntime {
		interrupted = true
	}
	if rh.diverged.Load() || res2 == nil {
		return res, err, interrupted
	}
	var se *Error
	errors.As(err, &se)
	switch {
	case se == nil && se2 == nil:
	case se != nil && se2 != nil && se.Kind == se2.Kind && se.Line == se2.Line && se.Column == se2.Column:
		if strings.HasPrefix(se2.Message, se.Message) {
			se.Message = se2.Message
		}
	default:
		return res, err, interrupted
	}
	if ws, ok := mergeWarnings(res.Warnings, res2.Warnings); ok {
		res.Warnings = ws
	}
	return res, err, interrupted
}

// mergeWarnings returns first's warnings with the second run's wording of
// those about values, and the warnings about values only the second run
// could give (a host result passed whole), in the second run's order. ok
// is false when the runs warned differently otherwise.
func mergeWarnings(first, second []Warning) (_ []Warning, ok bool) {
	out := make([]Warning, 0, len(second))
	i := 0
	for _, w2 := range second {
		if i < len(first) {
			w := first[i]
			if w.Kind == w2.Kind && w.Function == w2.Function && w.Line == w2.Line && w.Column == w2.Column {
				if w.Kind == WarningValue || w.Kind == WarningUndefinedArgument {
					w.Message = w2.Message
				}
				out = append(out, w)
				i++
				continue
			}
		}
		if w2.Kind != WarningValue {
			return nil, false
		}
		out = append(out, w2)
	}
	return out, i == len(first)
}

// errDiverged is the error a second run's call gets when the first run
// made no such call: the runs have parted, and the second is discarded.
var errDiverged = errors.New("the second run of the script departed from the first")

// replayHost answers a second run from the first run's log; it never
// calls the host. Questions that change nothing (the host's functions,
// explanations of names and shapes) go to the host the first run had.
type replayHost struct {
	inner    Host
	log      *callLog
	mu       sync.Mutex
	nextFree int
	nextSub  int
	diverged atomic.Bool
}

// Functions is the first run's host's.
func (h *replayHost) Functions() map[string][]string { return h.inner.Functions() }

// FreeNamespaces is the first run's host's.
func (h *replayHost) FreeNamespaces() []string {
	if fh, ok := h.inner.(FreeHost); ok {
		return fh.FreeNamespaces()
	}
	return nil
}

// SubprogramNamespaces is the first run's host's.
func (h *replayHost) SubprogramNamespaces() []string {
	if sh, ok := h.inner.(SubprogramHost); ok {
		return sh.SubprogramNamespaces()
	}
	return nil
}

// Call answers a counted call (its context carries its position) or a
// free call (the next one logged) as the first run's host did.
func (h *replayHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var c *loggedCall
	if pos, ok := PositionOf(ctx); ok {
		if pos.Index < len(h.log.calls) {
			c = &h.log.calls[pos.Index]
		}
	} else if h.nextFree < len(h.log.free) {
		c = &h.log.free[h.nextFree]
		h.nextFree++
	}
	if c == nil || !c.answered || c.name != name || !bytes.Equal(c.args, args) {
		h.diverged.Store(true)
		return nil, errDiverged
	}
	for _, w := range c.warnings {
		Warn(ctx, w)
	}
	return c.out, c.err
}

// Subprogram answers as the first run's host did.
func (h *replayHost) Subprogram(_ context.Context, name string, args json.RawMessage) (*Subprogram, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.nextSub >= len(h.log.subs) {
		h.diverged.Store(true)
		return nil, errDiverged
	}
	s := h.log.subs[h.nextSub]
	h.nextSub++
	if s.name != name || !bytes.Equal(s.args, args) {
		h.diverged.Store(true)
		return nil, errDiverged
	}
	return s.sp, s.err
}

// unwrapReplay returns the host a second run stands in for, or h.
func unwrapReplay(h Host) Host {
	if r, ok := h.(*replayHost); ok {
		return r.inner
	}
	return h
}

// answer logs the answer r of the counted call at index, delivered now.
func (l *callLog) answer(index int, r callResult) {
	if index < len(l.calls) {
		c := &l.calls[index]
		c.out, c.err, c.warnings, c.answered = r.out, r.err, r.warnings, true
	}
	l.order = append(l.order, index)
}
