package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/sandbox"
)

// approvalRun is the approval state of one run of the code: the
// earlier runs' calls it replays, what the user approved, the calls that
// wait for approval, the record of every call, and a count of host calls,
// so the run's end can wait for every call the script issued to be seen.
//
// Calls are decided in the order the script made them (sandbox.CallPosition):
// a call waits until every call made before it has been decided, which
// takes microseconds (a dry run at most). So which calls ran, waited for
// approval or were stopped does not depend on how the host's goroutines
// were scheduled, and a resumed run that follows the record decides its
// calls exactly as the asking run did.
type approvalRun struct {
	a      *Policy
	x      Caller          // the execution: tiers and dry runs
	reqCtx context.Context // the tools/call context: dry runs outlive the script's calls

	mu       sync.Mutex
	replay   *replay         // the earlier runs' calls; nil in the first run
	grants   map[string]bool // functions approved for the rest of the execution, past the stop
	approved []approvedCall  // exact calls the user approved, not yet made
	stop     *stopCall       // the first call the last question showed; nil in the first run
	pending  []pendingCall
	diverged *divergence
	record   []recordedCall // calls replayed or run, in the order they returned
	exited   int            // host calls that returned
	changed  chan struct{}  // closed and replaced when exited grows
	turn     int            // the CallPosition.Index of the next call to decide
	answered int            // CallPosition.Answered of the first call that waits
	turned   chan struct{}  // closed when turn grows; made by the first call that waits
	resumed  bool           // there is a record, an approval or a stop to match calls against
}

// pendingCall is a validated call that waits for the user's approval.
type pendingCall struct {
	approvedCall
	Tier  catalog.Tier
	Index int // sandbox.CallPosition.Index; -1 when unknown
}

// stopCall is the first call (in the order the script made them) that a
// question showed: a resumed run that follows its record makes exactly
// this call at exactly this position, with every call before it answered
// from the record.
type stopCall struct {
	Index int `json:"i"`
	approvedCall
}

func newApprovalRun(a *Policy, reqCtx context.Context, ex *approvalExec, x Caller) *approvalRun {
	r := &approvalRun{a: a, x: x, reqCtx: reqCtx, grants: maps.Clone(ex.Grants), approved: slices.Clone(ex.Approved), stop: ex.Stop,
		changed: make(chan struct{})}
	if len(ex.Record) > 0 {
		r.replay = newReplay(ex.Record)
	}
	r.resumed = r.replay != nil || r.stop != nil || len(r.approved) > 0
	return r
}

// errApprovalPending is what the script's promise rejects with when a
// call waits for approval. The execution's outcome replaces it: the model
// reads the approval's outcome, not this.
type errApprovalPending struct{ name string }

func (e errApprovalPending) Error() string { return e.name + errApprovalPendingText }

// errApprovalPendingText ends every errApprovalPending message.
const errApprovalPendingText = " waits for the user's approval; the execution stops here and resumes once the user answers"

// errApprovalStopped rejects every other call once a call waits for
// approval, so nothing after it runs.
type errApprovalStopped struct{}

func (errApprovalStopped) Error() string {
	return "the execution is stopping: an earlier call waits for the user's approval"
}

// exit counts a host call that returned.
func (r *approvalRun) exit() {
	r.mu.Lock()
	r.exited++
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

// maxTurnWait bounds how long a call waits for the calls made before it
// to be decided. They reach the host within microseconds of each other;
// the bound only keeps a call whose predecessor never arrives (a worker
// lost mid-run) from waiting for the rest of the time limit.
const maxTurnWait = 2 * time.Second

// awaitTurn waits until every call made before call index has been
// decided. The caller must call pass(index) once it has decided. In the
// common case the calls before it were decided long ago, and it returns
// at once without allocating.
func (r *approvalRun) awaitTurn(ctx context.Context, index int) {
	var t *time.Timer
	for {
		r.mu.Lock()
		if r.turn >= index {
			r.mu.Unlock()
			if t != nil {
				t.Stop()
			}
			return
		}
		if r.turned == nil {
			r.turned = make(chan struct{})
		}
		ch := r.turned
		r.mu.Unlock()
		if t == nil {
			t = time.NewTimer(maxTurnWait)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
			return
		}
	}
}

// pass marks call index decided, letting the next one be decided.
func (r *approvalRun) pass(index int) {
	r.mu.Lock()
	if index+1 > r.turn {
		r.turn = index + 1
		if r.turned != nil {
			close(r.turned)
			r.turned = nil
		}
	}
	r.mu.Unlock()
}

// decision is what intercept decided about a call: run it (live), or
// answer it with out or err without calling the host.
type decision struct {
	live bool
	out  json.RawMessage
	err  error
}

var runLive = decision{live: true}

// intercept decides a call to fn (qualified) at position pos (hasPos
// false: unknown) when approvals are on. In order:
//  1. a call the record holds is answered from it;
//  2. a call the user approved with exactly these arguments runs;
//  3. up to the stop, every other call diverges, except a read that the
//     asking run did not see answered (it runs again);
//  4. past the stop, a call that is not a read diverges while recorded
//     calls remain (the run left its record);
//  5. a call that needs approval runs if the user approved its function
//     for the rest of the execution (the question said so), else it is
//     validated as a dry run and waits for approval.
//
// Once a call waits, the calls that need approval and were made together
// with it (before the script saw any answer after it) join it in one
// question; every other call is stopped. A call made after the script
// saw an answer may depend on the refusal itself (a catch block), so it is
// never shown to the user in the same question.
func (r *approvalRun) intercept(fn string, pos sandbox.CallPosition, hasPos bool, args json.RawMessage) decision {
	_, need := r.a.required[fn]
	tier, _ := r.x.Tier(fn)
	// Canonical arguments cost a decode and an encode: a run with nothing
	// to replay, approve or stop at makes none for its reads.
	var (
		canon   json.RawMessage
		dry, ok bool
	)
	if need || r.resumed {
		canon, dry, ok = canonicalArgs(args)
	}
	need = need && !(ok && dry) // the script's own dry run writes nothing
	harmless := tier == catalog.ReadOnly || (ok && dry)

	r.mu.Lock()
	if r.diverged != nil {
		r.mu.Unlock()
		return decision{err: errApprovalStopped{}}
	}
	if len(r.pending) > 0 {
		together := !hasPos || pos.Answered == r.answered
		r.mu.Unlock()
		if !need || !together {
			return decision{err: errApprovalStopped{}}
		}
		return r.ask(fn, tier, pos, hasPos, args, canon, ok, false)
	}
	if ok && r.replay != nil {
		if c := r.replay.take(fn, canon); c != nil {
			r.record = append(r.record, *c)
			r.mu.Unlock()
			return decision{out: c.Out, err: errOrNil(c.Err)}
		}
	}
	if need && ok && r.takeApproved(fn, canon) {
		r.mu.Unlock()
		return runLive
	}
	got := approvedCall{Fn: fn, Args: canon}
	if r.stop != nil && hasPos && pos.Index <= r.stop.Index {
		if pos.Index < r.stop.Index && harmless {
			r.mu.Unlock()
			return runLive
		}
		want := r.stop.approvedCall
		if w, left := r.replay.firstLeft(); left && pos.Index < r.stop.Index {
			want = w
		}
		return r.diverge(got, want)
	}
	if w, left := r.replay.firstLeft(); left && !harmless {
		return r.diverge(got, w)
	}
	if !need || r.grants[fn] {
		r.mu.Unlock()
		return runLive
	}
	r.mu.Unlock()
	return r.ask(fn, tier, pos, hasPos, args, canon, ok, true)
}

// diverge stops the run at a call that differs from the run the user
// approved. r.mu is held and released.
func (r *approvalRun) diverge(got, want approvedCall) decision {
	r.diverged = &divergence{Got: got, Want: want}
	r.mu.Unlock()
	return decision{err: errDiverged}
}

// takeApproved uses the user's approval of fn with exactly args, if there
// is one. r.mu is held.
func (r *approvalRun) takeApproved(fn string, args json.RawMessage) bool {
	for i, c := range r.approved {
		if c.Fn == fn && bytes.Equal(c.Args, args) {
			r.approved = slices.Delete(r.approved, i, i+1)
			return true
		}
	}
	return false
}

// ask validates a call that needs approval exactly as a dry run and, if
// it is valid, adds it to the calls that wait. An invalid call is not
// worth asking about: the script reads why, and when no call waits yet
// (record) its failure is recorded for the runs that resume.
func (r *approvalRun) ask(fn string, tier catalog.Tier, pos sandbox.CallPosition, hasPos bool, args, canon json.RawMessage, ok, record bool) decision {
	// The tools/call context, not the script's: a call issued with others
	// (Promise.all) may reach here after the script has already stopped
	// on the first.
	if derr := r.x.DryRun(r.reqCtx, fn, args, withValidateOnly(args)); derr != nil {
		if record {
			r.ran(fn, tier, args, nil, derr)
		}
		return decision{err: derr}
	}
	if !ok {
		// Unreachable: the catalog refuses arguments that are not an
		// object. Never ask about what cannot be named exactly.
		return decision{err: fmt.Errorf("the arguments to %s must be an object", fn)}
	}
	index := pos.Index
	if !hasPos {
		index = -1
	}
	r.mu.Lock()
	if len(r.pending) == 0 {
		r.answered = pos.Answered
	}
	r.pending = append(r.pending, pendingCall{approvedCall: approvedCall{Fn: fn, Args: canon, From: pos.From}, Tier: tier, Index: index})
	r.mu.Unlock()
	return decision{err: errApprovalPending{name: fn}}
}

// errOrNil keeps a nil *recordedError from becoming a non-nil error.
func errOrNil(e *recordedError) error {
	if e == nil {
		return nil
	}
	return e
}

// ran records a call that reached the host (or failed its dry run), for
// the runs that resume the execution. Arguments are made canonical only
// when the record is kept (canonicalRecord): a run that needs no approval
// pays for no more than an append.
func (r *approvalRun) ran(fn string, tier catalog.Tier, args, out json.RawMessage, err error) {
	if catalog.CodeOf(err) == catalog.CodeCancelled {
		// Cut short by the run's end, not an answer: the next run makes
		// this call again.
		return
	}
	c := recordedCall{Fn: fn, Args: args, Out: out, Err: recordError(err), Write: err == nil && tier != catalog.ReadOnly}
	if c.Write {
		if _, dry, _ := canonicalArgs(args); dry {
			c.Write = false
		}
	}
	r.mu.Lock()
	r.record = append(r.record, c)
	r.mu.Unlock()
}

// stopOf returns the first of the calls that wait, in the order the
// script made them: where the next run must make exactly that call. It is
// nil when a call's position is unknown.
func stopOf(pending []pendingCall) *stopCall {
	var first *stopCall
	for _, p := range pending {
		if p.Index < 0 {
			return nil
		}
		if first == nil || p.Index < first.Index {
			first = &stopCall{Index: p.Index, approvedCall: p.approvedCall}
		}
	}
	return first
}

// unusedApprovals returns the exact calls the user approved that this
// run did not make: they stay approved for the runs after it.
func (r *approvalRun) unusedApprovals() []approvedCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.approved)
}

// canonicalRecord returns the run's record with every call's arguments
// canonical, as the next run replays it.
func (r *approvalRun) canonicalRecord() []recordedCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]recordedCall, len(r.record))
	for i, c := range r.record {
		if canon, _, ok := canonicalArgs(c.Args); ok {
			c.Args = canon
		}
		out[i] = c
	}
	return out
}

// settle waits until every call the script issued has returned, so that
// calls issued together with the first one that waits for approval are in
// the batch, then returns the calls that wait. The sandbox starts the host
// call of every call it records (all but those it rejected itself) before
// the run ends, so the count is reached; bound bounds the wait anyway.
func (r *approvalRun) settle(ctx context.Context, res *sandbox.Result, bound time.Duration) []pendingCall {
	want := 0
	if res != nil {
		for _, c := range res.Calls {
			if c.Outcome != sandbox.OutcomeRejected {
				want++
			}
		}
	}
	t := time.NewTimer(bound)
	defer t.Stop()
	for {
		r.mu.Lock()
		n, ch := r.exited, r.changed
		if n >= want {
			out := slices.Clone(r.pending)
			r.mu.Unlock()
			// Calls issued together arrive in any order; the user reads
			// them in one.
			slices.SortStableFunc(out, func(a, b pendingCall) int {
				if c := strings.Compare(a.Fn, b.Fn); c != 0 {
					return c
				}
				if len(a.Args) != len(b.Args) {
					return len(a.Args) - len(b.Args)
				}
				return bytes.Compare(a.Args, b.Args)
			})
			return out
		}
		r.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			want = 0
		case <-t.C:
			want = 0
		}
	}
}

// canonicalArgs returns args as catalog.Canonical makes them (members
// sorted, no whitespace, numbers as written, the dry-run key removed),
// whether they asked for a dry run, and whether they are a JSON object at
// all. Absent or null arguments are {}.
func canonicalArgs(args json.RawMessage) (canon json.RawMessage, dry, ok bool) {
	canon, dry, err := catalog.Canonical(args)
	return canon, dry, err == nil
}

// withValidateOnly returns args with the dry-run key set to true.
// Arguments that are not an object are returned as they are, for the
// catalog to refuse.
func withValidateOnly(args json.RawMessage) json.RawMessage {
	canon, _, err := catalog.Canonical(args)
	if err != nil {
		return args
	}
	dry := `{"` + catalog.ValidateOnlyKey + `":true`
	if string(canon) == "{}" {
		return json.RawMessage(dry + "}")
	}
	return json.RawMessage(dry + "," + string(canon[1:]))
}
