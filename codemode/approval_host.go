package codemode

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
type approvalRun struct {
	a      *approver
	reqCtx context.Context // the tools/call context: dry runs outlive the script's calls

	mu       sync.Mutex
	replay   *replay         // the earlier runs' calls; nil in the first run
	grants   map[string]bool // functions approved for the rest of the execution
	approved []approvedCall  // ApprovalOptions.PerCall: calls approved, not yet used
	pending  []pendingCall
	diverged *divergence
	record   []recordedCall // calls replayed or run, in the order they returned
	exited   int            // host calls that returned
	changed  chan struct{}  // closed and replaced when exited grows
}

// pendingCall is a validated call that waits for the user's approval.
type pendingCall struct {
	approvedCall
	Tier catalog.Tier
}

func newApprovalRun(a *approver, reqCtx context.Context, ex *approvalExec) *approvalRun {
	r := &approvalRun{a: a, reqCtx: reqCtx, grants: maps.Clone(ex.Grants), approved: slices.Clone(ex.Approved), changed: make(chan struct{})}
	if len(ex.Record) > 0 {
		r.replay = newReplay(ex.Record)
	}
	return r
}

// errApprovalPending is what the script's promise rejects with when a
// call waits for approval. The execution's outcome replaces it: the model
// reads the approval's outcome, not this.
type errApprovalPending struct{ name string }

func (e errApprovalPending) Error() string {
	return e.name + " waits for the user's approval; the execution stops here and resumes once the user answers"
}

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

// intercept handles a call to fn when approvals are on. done reports
// whether it answered the call; otherwise the call runs as usual and its
// outcome goes to ran.
func (r *approvalRun) intercept(h *execHost, fn, name string, args json.RawMessage) (out json.RawMessage, err error, done bool) {
	r.mu.Lock()
	if r.diverged != nil {
		r.mu.Unlock()
		return nil, errApprovalStopped{}, true
	}
	waiting := len(r.pending) > 0
	if !waiting && r.replay != nil && r.replay.left > 0 {
		canon, _, _ := canonicalArgs(args)
		c, div, _ := r.replay.answer(fn, canon)
		if c != nil {
			r.record = append(r.record, *c)
			r.mu.Unlock()
			if c.Err != nil {
				return nil, c.Err, true
			}
			return c.Out, nil, true
		}
		r.diverged = div
		r.mu.Unlock()
		return nil, errDiverged, true
	}
	r.mu.Unlock()

	tier, need := r.a.required[fn]
	if !need {
		if waiting {
			return nil, errApprovalStopped{}, true
		}
		return nil, nil, false
	}
	canon, dry, ok := canonicalArgs(args)
	if ok && dry {
		// The script's own dry run writes nothing: no approval needed.
		if waiting {
			return nil, errApprovalStopped{}, true
		}
		return nil, nil, false
	}
	if ok && !waiting && r.allowed(fn, canon) {
		return nil, nil, false
	}

	// Validate exactly as a dry run. The tools/call context, not the
	// script's: a call issued with others (Promise.all) may reach here
	// after the script has already stopped on the first.
	ctx := r.reqCtx
	if h.principal != nil {
		ctx = catalog.WithPrincipal(ctx, *h.principal)
	}
	start := time.Now()
	_, derr := h.s.callCatalog(ctx, fn, withValidateOnly(args))
	if derr != nil {
		// An invalid call is not worth asking about: the script reads why.
		ev := h.base
		ev.Kind, ev.Time, ev.Function, ev.Tier = FunctionCalled, start, name, tier.String()
		ev.Args = auditArgs(h.s.opts.AuditArgs, args)
		ev.Duration = time.Since(start)
		ev.ErrorKind = catalog.CodeOf(derr)
		h.s.audit.Audit(ctx, ev)
		r.ran(fn, tier, args, nil, derr)
		return nil, derr, true
	}
	if !ok {
		// Unreachable: the catalog refuses arguments that are not an
		// object. Never ask about what cannot be named exactly.
		return nil, fmt.Errorf("the arguments to %s must be an object", name), true
	}
	r.mu.Lock()
	r.pending = append(r.pending, pendingCall{approvedCall: approvedCall{Fn: fn, Args: canon}, Tier: tier})
	r.mu.Unlock()
	return nil, errApprovalPending{name: name}, true
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

// allowed uses the approval of fn with canonical arguments args: the
// function's grant, or under ApprovalOptions.PerCall one approved call.
func (r *approvalRun) allowed(fn string, args json.RawMessage) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.grants[fn] {
		return true
	}
	for i, c := range r.approved {
		if c.Fn == fn && bytes.Equal(c.Args, args) {
			r.approved = slices.Delete(r.approved, i, i+1)
			return true
		}
	}
	return false
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

// canonicalArgs returns args as canonical JSON (members sorted, no
// whitespace, numbers as written, "_validateOnly" removed), whether they
// asked for a dry run, and whether they are a JSON object at all. Absent
// or null arguments are {}.
func canonicalArgs(args json.RawMessage) (canon json.RawMessage, dry, ok bool) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		return json.RawMessage("{}"), false, true
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, false, false
	}
	if v, present := obj[validateOnlyKey]; present {
		b, isBool := v.(bool)
		dry = isBool && b
		delete(obj, validateOnlyKey)
	}
	out, err := json.Marshal(obj) // maps marshal with sorted keys
	if err != nil {
		return nil, false, false
	}
	return out, dry, true
}

// validateOnlyKey is the argument member that asks the catalog for a dry run.
const validateOnlyKey = "_validateOnly"

// withValidateOnly returns args with "_validateOnly": true. Arguments that
// are not an object are returned as they are, for the catalog to refuse.
func withValidateOnly(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage(`{"` + validateOnlyKey + `":true}`)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(t, &obj); err != nil || obj == nil {
		return args
	}
	obj[validateOnlyKey] = json.RawMessage("true")
	out, err := json.Marshal(obj)
	if err != nil {
		return args
	}
	return out
}
