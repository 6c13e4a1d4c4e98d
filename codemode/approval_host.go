package codemode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/sandbox"
)

// approvalRun is the approval state of one run of the code: the calls
// the user approved (each may run once), the calls that wait for approval
// and a count of host calls, so the run's end can wait for every call the
// script issued to be seen.
type approvalRun struct {
	a      *approver
	reqCtx context.Context // the tools/call context: dry runs outlive the script's calls

	mu       sync.Mutex
	approved []approvedCall // not yet used by this run
	afterOK  bool           // this run follows an approval: an unapproved call diverges
	pending  []pendingCall
	exited   int           // host calls that returned
	changed  chan struct{} // closed and replaced when exited grows
}

// pendingCall is a validated call that waits for the user's approval.
type pendingCall struct {
	approvedCall
	Tier     catalog.Tier
	Diverged bool // made in a run after an approval, and not approved
}

func newApprovalRun(a *approver, reqCtx context.Context, approved []approvedCall) *approvalRun {
	return &approvalRun{a: a, reqCtx: reqCtx, approved: slices.Clone(approved), afterOK: len(approved) > 0, changed: make(chan struct{})}
}

// errApprovalPending is what the script's promise rejects with when a
// call waits for approval. The execution's outcome replaces it: the model
// reads the approval's outcome, not this.
type errApprovalPending struct{ name string }

func (e errApprovalPending) Error() string {
	return e.name + " waits for the user's approval; the execution stops here and runs again once the user answers"
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
// whether it answered the call; otherwise the call runs as usual.
func (r *approvalRun) intercept(h *execHost, fn, name string, args json.RawMessage) (out json.RawMessage, err error, done bool) {
	tier, need := r.a.required[fn]
	r.mu.Lock()
	stopped := len(r.pending) > 0
	r.mu.Unlock()
	if !need {
		if stopped {
			return nil, errApprovalStopped{}, true
		}
		return nil, nil, false
	}
	canon, dry, ok := canonicalArgs(args)
	if ok && dry {
		// The script's own dry run writes nothing: no approval needed.
		if stopped {
			return nil, errApprovalStopped{}, true
		}
		return nil, nil, false
	}
	if ok && !stopped && r.take(fn, canon) {
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
		ev.ErrorKind = callErrorKind(derr)
		h.s.audit.Audit(ctx, ev)
		return nil, derr, true
	}
	if !ok {
		// Unreachable: the catalog refuses arguments that are not an
		// object. Never ask about what cannot be named exactly.
		return nil, fmt.Errorf("the arguments to %s must be an object", name), true
	}
	r.mu.Lock()
	r.pending = append(r.pending, pendingCall{approvedCall: approvedCall{Fn: fn, Args: canon}, Tier: tier, Diverged: r.afterOK})
	r.mu.Unlock()
	return nil, errApprovalPending{name: name}, true
}

// take uses one approval for fn with canonical arguments args.
func (r *approvalRun) take(fn string, args json.RawMessage) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, c := range r.approved {
		if c.Fn == fn && bytes.Equal(c.Args, args) {
			r.approved = slices.Delete(r.approved, i, i+1)
			return true
		}
	}
	return false
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
