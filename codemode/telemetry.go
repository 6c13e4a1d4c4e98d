package codemode

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/httpmw"
	"github.com/brakinglab/codemode-go/internal/traceparent"
	"github.com/brakinglab/codemode-go/sandbox"
)

// Observer watches what a [Server] does, for tracing and metrics. Set it in
// [Options.Observer]; nil observes nothing ([Server.Stats] counts either
// way). The package github.com/brakinglab/codemode-go/otelcodemode, a
// module of its own so that this one carries no OpenTelemetry, implements
// it with OpenTelemetry traces and metrics:
//
//	opts.Observer = otelcodemode.New(nil) // the global providers
//
// Each start method is called as the work starts and returns the context
// the work runs in (with the observer's span, say) and a function the
// Server calls exactly once as it ends. The Server calls the methods
// concurrently, from the goroutines serving requests: they must be safe
// for concurrent use, and must neither block nor panic.
//
// An implementation should embed [NopObserver], so that a method added to
// this interface later does not break it.
type Observer interface {
	// Attach is called once, by New, before any other method. pool
	// reports the sandbox's worker pool (for gauges); detach, when not
	// nil, is called by Close. An error fails New.
	Attach(pool func() sandbox.Stats) (detach func(), err error)
	// Execution observes one tools/call of a code tool, from its arrival
	// to its result, approvals included.
	Execution(ctx context.Context, e ExecutionStart) (context.Context, func(ExecutionEnd))
	// Run observes one run of the script in the sandbox (an execution
	// resumed after an approval runs again).
	Run(ctx context.Context) (context.Context, func(RunEnd))
	// Call observes one call of a host function by the script. The
	// function runs in the returned context. end gets the function's
	// error, nil on success.
	Call(ctx context.Context, c CallStart) (context.Context, func(err error))
	// Approval observes one wait for the user's answer on the session
	// (elicitation). end gets the answer's action: "accept", "decline",
	// "cancel", "none" (no answer) or "error".
	Approval(ctx context.Context) (context.Context, func(action string))
	// Event reports something counted: see [ObservedEvent].
	Event(ctx context.Context, ev ObservedEvent)
	// TraceID returns the trace id of ctx's span ("" when none), for the
	// audit events of the execution ctx belongs to. Without one, audit
	// events carry the trace id of the client's W3C traceparent (_meta or
	// HTTP header), else a random one.
	TraceID(ctx context.Context) string
}

// ExecutionStart is what [Observer.Execution] is told as a tools/call of a
// code tool starts.
type ExecutionStart struct {
	// Tool is the code tool's name.
	Tool string
	// Request is the tools/call: its _meta may carry the client's trace
	// context (traceparent, tracestate), its Extra the HTTP headers. The
	// observer must not change it.
	Request *mcp.CallToolRequest
}

// ExecutionEnd is what [Observer.Execution]'s end function is told.
type ExecutionEnd struct {
	// Outcome is "ok", the error kind the model read (RUNTIME, TIMEOUT,
	// APPROVAL_DECLINED, …), or APPROVAL_REQUIRED for a call answered with
	// an input request, which the client retries. Failed is true for the
	// error kinds, false for "ok" and APPROVAL_REQUIRED.
	Outcome string
	Failed  bool
	// Calls is the number of host calls the script made.
	Calls int
}

// RunEnd is what [Observer.Run]'s end function is told.
type RunEnd struct {
	// Result is the sandbox's result, nil when the run never started.
	// Its Duration and Compile time the run in the worker; the rest of the
	// time since Run was called is the wait for a worker (admission).
	Result *sandbox.Result
	// Err is the run's error: a *sandbox.Error for the script's failures.
	Err error
}

// CallStart is what [Observer.Call] is told as a host call starts.
type CallStart struct {
	// Function is the namespaced name the script called.
	Function string
	// Tier is the function's tier.
	Tier catalog.Tier
	// Arguments is the call's argument JSON. It may hold personal data;
	// the observer must not change it.
	Arguments json.RawMessage
}

// ObservedEvent is a counted occurrence an [Observer] is told of.
type ObservedEvent int

// The events of [Observer.Event].
const (
	// EventRateLimited: the per-principal rate limit refused (or delayed
	// past its wait) an HTTP request.
	EventRateLimited ObservedEvent = iota + 1
	// EventApprovalAsked: the user was asked to approve a call.
	EventApprovalAsked
	// EventApprovalAccepted: the user approved a call.
	EventApprovalAccepted
	// EventApprovalDeclined: the user declined a call.
	EventApprovalDeclined
)

// String returns the event's name: rate_limited, approval_asked,
// approval_accepted, approval_declined.
func (e ObservedEvent) String() string {
	switch e {
	case EventRateLimited:
		return "rate_limited"
	case EventApprovalAsked:
		return "approval_asked"
	case EventApprovalAccepted:
		return "approval_accepted"
	case EventApprovalDeclined:
		return "approval_declined"
	}
	return "unknown"
}

// NopObserver observes nothing. Embed it in an [Observer] to implement
// only some of the methods.
type NopObserver struct{}

// Attach implements [Observer].
func (NopObserver) Attach(func() sandbox.Stats) (func(), error) { return nil, nil }

// Execution implements [Observer].
func (NopObserver) Execution(ctx context.Context, _ ExecutionStart) (context.Context, func(ExecutionEnd)) {
	return ctx, func(ExecutionEnd) {}
}

// Run implements [Observer].
func (NopObserver) Run(ctx context.Context) (context.Context, func(RunEnd)) {
	return ctx, func(RunEnd) {}
}

// Call implements [Observer].
func (NopObserver) Call(ctx context.Context, _ CallStart) (context.Context, func(error)) {
	return ctx, func(error) {}
}

// Approval implements [Observer].
func (NopObserver) Approval(ctx context.Context) (context.Context, func(string)) {
	return ctx, func(string) {}
}

// Event implements [Observer].
func (NopObserver) Event(context.Context, ObservedEvent) {}

// TraceID implements [Observer].
func (NopObserver) TraceID(context.Context) string { return "" }

// telemetry holds a Server's observer and the counters behind
// Server.Stats.
type telemetry struct {
	obs    Observer
	detach func()

	mu          sync.Mutex
	byOutcome   map[string]uint64
	hostCalls   atomic.Uint64
	callErrors  atomic.Uint64
	limitedN    atomic.Uint64
	asked       atomic.Uint64
	accepted    atomic.Uint64
	declined    atomic.Uint64
	progressOut atomic.Uint64
}

func newTelemetry(obs Observer, sb *sandbox.Sandbox) (*telemetry, error) {
	if obs == nil {
		obs = NopObserver{}
	}
	t := &telemetry{obs: obs, byOutcome: map[string]uint64{}}
	detach, err := obs.Attach(sb.Stats)
	if err != nil {
		return nil, err
	}
	t.detach = detach
	return t, nil
}

// close detaches the observer (its gauges hold the sandbox).
func (t *telemetry) close() {
	if t != nil && t.detach != nil {
		t.detach()
	}
}

// startExecution starts observing one tools/call of a code tool; end
// takes its result.
func (t *telemetry) startExecution(ctx context.Context, req *mcp.CallToolRequest, tool string) (context.Context, func(res *mcp.CallToolResult)) {
	ctx, end := t.obs.Execution(ctx, ExecutionStart{Tool: tool, Request: req})
	return ctx, func(res *mcp.CallToolResult) {
		outcome, calls := executionOutcome(res)
		failed := outcome != "ok" && outcome != string(approval.KindRequired)
		end(ExecutionEnd{Outcome: outcome, Failed: failed, Calls: calls})
		t.mu.Lock()
		t.byOutcome[outcome]++
		t.mu.Unlock()
	}
}

// executionOutcome names a tools/call's result for Stats and observers.
func executionOutcome(res *mcp.CallToolResult) (outcome string, calls int) {
	outcome = "ok"
	if res == nil {
		return outcome, 0
	}
	if st, ok := res.StructuredContent.(structured); ok {
		calls = len(st.Calls)
		if st.Error != nil {
			outcome = string(st.Error.Kind)
		}
	}
	if len(res.InputRequests) > 0 {
		// 2026-07-28: the client is asked for approval and retries.
		outcome = string(approval.KindRequired)
	}
	if res.IsError && outcome == "ok" {
		outcome = string(sandbox.KindInternal)
	}
	return outcome, calls
}

// startRun starts observing one sandbox run.
func (t *telemetry) startRun(ctx context.Context) (context.Context, func(res *sandbox.Result, err error)) {
	ctx, end := t.obs.Run(ctx)
	return ctx, func(res *sandbox.Result, err error) { end(RunEnd{Result: res, Err: err}) }
}

// startCall starts observing one host call; end records its outcome.
func (t *telemetry) startCall(ctx context.Context, name string, tier catalog.Tier, args json.RawMessage) (context.Context, func(err error)) {
	ctx, end := t.obs.Call(ctx, CallStart{Function: name, Tier: tier, Arguments: args})
	return ctx, func(err error) {
		if err != nil {
			t.callErrors.Add(1)
		}
		t.hostCalls.Add(1)
		end(err)
	}
}

// observe counts approvals from the audit events that record them.
func (t *telemetry) observe(next AuditSink) AuditSink {
	return AuditFunc(func(ctx context.Context, ev AuditEvent) {
		switch ev.Kind {
		case ApprovalRequested:
			t.asked.Add(1)
			t.obs.Event(ctx, EventApprovalAsked)
		case ApprovalGranted:
			t.accepted.Add(1)
			t.obs.Event(ctx, EventApprovalAccepted)
		case ApprovalDeclined:
			t.declined.Add(1)
			t.obs.Event(ctx, EventApprovalDeclined)
		}
		next.Audit(ctx, ev)
	})
}

// limited counts the requests a rate limit refuses.
func (t *telemetry) limited(l httpmw.Limiter) httpmw.Limiter {
	return httpmw.Counting(l, func(ctx context.Context) {
		t.limitedN.Add(1)
		t.obs.Event(ctx, EventRateLimited)
	})
}

// traceID is the trace id audit events carry, so they join the caller's
// trace: the observer's span's, else the client's W3C traceparent's (in
// _meta, else the HTTP header), else a random one.
func (t *telemetry) traceID(ctx context.Context, req *mcp.CallToolRequest) string {
	if id := t.obs.TraceID(ctx); id != "" {
		return id
	}
	if req.Params != nil {
		if tp, ok := req.Params.GetMeta()["traceparent"].(string); ok {
			if id, ok := traceparent.TraceID(tp); ok {
				return id
			}
		}
	}
	if req.Extra != nil && req.Extra.Header != nil {
		if id, ok := traceparent.TraceID(req.Extra.Header.Get("Traceparent")); ok {
			return id
		}
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Stats is a snapshot of a Server's activity since New, kept whether or
// not an [Observer] is set.
type Stats struct {
	// Sandbox is the worker pool: its size, the executions running on it
	// and those waiting for a worker.
	Sandbox sandbox.Stats
	// Executions counts finished tools/calls of code tools by outcome:
	// "ok", the error kind the model read (RUNTIME, TIMEOUT,
	// APPROVAL_DECLINED, …), or APPROVAL_REQUIRED for a call answered
	// with an input request (2026-07-28), which the client retries.
	Executions map[string]uint64
	// HostCalls counts calls that reached a host function; HostCallErrors
	// those that returned an error.
	HostCalls, HostCallErrors uint64
	// RateLimited counts HTTP requests the execution rate limit refused.
	RateLimited uint64
	// ApprovalsAsked counts calls the user was asked to approve;
	// ApprovalsAccepted and ApprovalsDeclined the answers.
	ApprovalsAsked, ApprovalsAccepted, ApprovalsDeclined uint64
	// ProgressSent counts progress notifications sent to clients.
	ProgressSent uint64
}

// Stats reports the server's activity since New.
func (s *Server) Stats() Stats {
	t := s.tel
	st := Stats{
		Sandbox:           s.sb.Stats(),
		Executions:        map[string]uint64{},
		HostCalls:         t.hostCalls.Load(),
		HostCallErrors:    t.callErrors.Load(),
		RateLimited:       t.limitedN.Load(),
		ApprovalsAsked:    t.asked.Load(),
		ApprovalsAccepted: t.accepted.Load(),
		ApprovalsDeclined: t.declined.Load(),
		ProgressSent:      t.progressOut.Load(),
	}
	t.mu.Lock()
	for k, v := range t.byOutcome {
		st.Executions[k] = v
	}
	t.mu.Unlock()
	return st
}

// CheckWorker reports whether a sandbox worker can start: it starts one
// and stops it (nil in process). Use it as a readiness check
// (package health); it wraps sandbox.ErrWorkerStart on failure.
func (s *Server) CheckWorker(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- s.sb.CheckWorker() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
