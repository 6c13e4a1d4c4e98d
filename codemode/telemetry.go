package codemode

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/httpmw"
	"github.com/brakinglab/codemode-go/sandbox"
)

// Telemetry configures the OpenTelemetry traces and metrics a [Server]
// produces. The package uses the OpenTelemetry API only: until the host
// installs an SDK (globally with otel.SetTracerProvider and
// otel.SetMeterProvider, or here), every span and instrument is a no-op.
//
// Spans, for each tools/call of a code tool:
//
//	tools/call execute_code            (SERVER; parent: the client's trace context)
//	├─ codemode.approval                (each wait for the user's approval on the session)
//	└─ codemode.run                     (one run in the sandbox)
//	   ├─ codemode.admission            (waiting for a free worker)
//	   ├─ codemode.compile              (transpiling and compiling, timed in the worker)
//	   └─ execute_tool <ns>.<function>  (each host call; the host function's context carries it)
//
// The client's trace context is read from the MCP request's _meta
// (traceparent, tracestate: any transport, stdio included) and, when
// _meta has none, from the HTTP request's headers. Attributes follow
// OpenTelemetry's MCP and GenAI conventions (mcp.method.name,
// gen_ai.tool.name, gen_ai.operation.name, jsonrpc.request.id,
// mcp.session.id, error.type) plus codemode.* attributes for what they do
// not cover. Code, arguments and results stay out of spans unless
// RecordContent is set.
type Telemetry struct {
	// TracerProvider makes the spans; nil means otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider makes the instruments; nil means otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// Propagator reads the client's trace context; nil means W3C Trace
	// Context (traceparent, tracestate) and Baggage.
	Propagator propagation.TextMapPropagator
	// RecordContent puts the submitted code (codemode.code) on execution
	// spans and each call's argument JSON (codemode.call.arguments) on
	// host-call spans. They may hold personal data: enable it deliberately.
	RecordContent bool
}

// instrumentationName names the tracer and meter.
const instrumentationName = "github.com/brakinglab/codemode-go/codemode"

// Attribute keys the conventions do not define.
const (
	attrTier       = attribute.Key("codemode.function.tier")
	attrOutcome    = attribute.Key("codemode.outcome")
	attrArgsBytes  = attribute.Key("codemode.call.arguments.size")
	attrArgs       = attribute.Key("codemode.call.arguments")
	attrCode       = attribute.Key("codemode.code")
	attrCodeBytes  = attribute.Key("codemode.code.size")
	attrCalls      = attribute.Key("codemode.calls")
	attrCached     = attribute.Key("codemode.compile.cached")
	attrApproval   = attribute.Key("codemode.approval.action")
	attrMCPMethod  = attribute.Key("mcp.method.name")
	attrMCPSession = attribute.Key("mcp.session.id")
	attrToolName   = attribute.Key("gen_ai.tool.name")
	attrOperation  = attribute.Key("gen_ai.operation.name")
	attrRequestID  = attribute.Key("jsonrpc.request.id")
	attrErrorType  = attribute.Key("error.type")
	attrTransport  = attribute.Key("network.transport")
)

// telemetry holds a Server's tracer, instruments and the counters behind
// Server.Stats.
type telemetry struct {
	tracer        trace.Tracer
	prop          propagation.TextMapPropagator
	recordContent bool

	executions   metric.Int64Counter
	execDuration metric.Float64Histogram
	calls        metric.Int64Counter
	callDuration metric.Float64Histogram
	admission    metric.Float64Histogram
	rateLimited  metric.Int64Counter
	approvals    metric.Int64Counter
	gauges       metric.Registration
	sets         sync.Map // name + outcome → metric.MeasurementOption

	// Server.Stats without OpenTelemetry.
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

func newTelemetry(o Telemetry, sb *sandbox.Sandbox) (*telemetry, error) {
	tp, mp, prop := o.TracerProvider, o.MeterProvider, o.Propagator
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	if prop == nil {
		prop = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	t := &telemetry{tracer: tp.Tracer(instrumentationName), prop: prop, recordContent: o.RecordContent, byOutcome: map[string]uint64{}}
	m := mp.Meter(instrumentationName)
	var err error
	seconds := metric.WithExplicitBucketBoundaries(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
	if t.executions, err = m.Int64Counter("codemode.executions", metric.WithUnit("{execution}"),
		metric.WithDescription("Executions of code tools, by tool and outcome (ok, or the error kind the model read).")); err != nil {
		return nil, err
	}
	if t.execDuration, err = m.Float64Histogram("codemode.execution.duration", metric.WithUnit("s"), seconds,
		metric.WithDescription("Duration of executions, from the tools/call to its result, approvals included.")); err != nil {
		return nil, err
	}
	if t.calls, err = m.Int64Counter("codemode.host_calls", metric.WithUnit("{call}"),
		metric.WithDescription("Host function calls, by function and outcome (ok, or the catalog error code).")); err != nil {
		return nil, err
	}
	if t.callDuration, err = m.Float64Histogram("codemode.host_call.duration", metric.WithUnit("s"), seconds,
		metric.WithDescription("Duration of host function calls, by function and outcome.")); err != nil {
		return nil, err
	}
	if t.admission, err = m.Float64Histogram("codemode.admission.wait", metric.WithUnit("s"), seconds,
		metric.WithDescription("Time an execution waited for a free sandbox worker.")); err != nil {
		return nil, err
	}
	if t.rateLimited, err = m.Int64Counter("codemode.rate_limited", metric.WithUnit("{request}"),
		metric.WithDescription("HTTP requests refused by the per-principal execution rate limit.")); err != nil {
		return nil, err
	}
	if t.approvals, err = m.Int64Counter("codemode.approvals", metric.WithUnit("{approval}"),
		metric.WithDescription("Approvals asked of the user and their answers (action: asked, accepted, declined).")); err != nil {
		return nil, err
	}
	workers, err := m.Int64ObservableGauge("codemode.workers", metric.WithUnit("{worker}"),
		metric.WithDescription("Sandbox workers by state: busy (running an execution) or idle."))
	if err != nil {
		return nil, err
	}
	queued, err := m.Int64ObservableGauge("codemode.executions.queued", metric.WithUnit("{execution}"),
		metric.WithDescription("Executions waiting for a free sandbox worker."))
	if err != nil {
		return nil, err
	}
	busy := metric.WithAttributeSet(attribute.NewSet(attribute.String("codemode.worker.state", "busy")))
	idle := metric.WithAttributeSet(attribute.NewSet(attribute.String("codemode.worker.state", "idle")))
	t.gauges, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		st := sb.Stats()
		o.ObserveInt64(workers, int64(st.Running), busy)
		o.ObserveInt64(workers, int64(max(st.Workers-st.Running, 0)), idle)
		o.ObserveInt64(queued, int64(st.Waiting))
		return nil
	}, workers, queued)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// close stops the gauges' callback, which holds the sandbox.
func (t *telemetry) close() {
	if t != nil && t.gauges != nil {
		_ = t.gauges.Unregister()
	}
}

// metaCarrier reads trace context from an MCP request's _meta.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string { s, _ := m[key].(string); return s }
func (m metaCarrier) Set(key, value string) { m[key] = value }
func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// extract returns ctx with the client's trace context: from _meta when it
// holds a traceparent (the only way over stdio), else from the HTTP
// headers. Without either, ctx keeps whatever span it had (a host's own
// HTTP instrumentation).
func (t *telemetry) extract(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	if req.Params != nil {
		if meta := req.Params.GetMeta(); meta != nil {
			if _, ok := meta["traceparent"].(string); ok {
				return t.prop.Extract(ctx, metaCarrier(meta))
			}
		}
	}
	if req.Extra != nil && req.Extra.Header != nil {
		return t.prop.Extract(ctx, propagation.HeaderCarrier(req.Extra.Header))
	}
	return ctx
}

// startExecution starts the span of one tools/call of a code tool.
func (t *telemetry) startExecution(ctx context.Context, req *mcp.CallToolRequest, tool string) (context.Context, trace.Span) {
	ctx = t.extract(ctx, req)
	ctx, span := t.tracer.Start(ctx, "tools/call "+tool, trace.WithSpanKind(trace.SpanKindServer))
	if span.IsRecording() {
		transport := "pipe"
		if req.Extra != nil && req.Extra.Header != nil {
			transport = "tcp"
		}
		span.SetAttributes(
			attrMCPMethod.String("tools/call"),
			attrToolName.String(tool),
			attrOperation.String("execute_tool"),
			attrTransport.String(transport),
		)
		if req.Session != nil {
			if id := req.Session.ID(); id != "" {
				span.SetAttributes(attrMCPSession.String(id))
			}
		}
		var in toolInput
		if json.Unmarshal(req.Params.Arguments, &in) == nil && in.Code != nil {
			span.SetAttributes(attrCodeBytes.Int(len(*in.Code)))
			if t.recordContent {
				span.SetAttributes(attrCode.String(*in.Code))
			}
		}
	}
	return ctx, span
}

// endExecution ends an execution's span and records its metrics.
func (t *telemetry) endExecution(ctx context.Context, span trace.Span, tool string, start time.Time, res *mcp.CallToolResult) {
	outcome := "ok"
	calls := 0
	if res != nil {
		if st, ok := res.StructuredContent.(structured); ok {
			calls = len(st.Calls)
			if st.Error != nil {
				outcome = string(st.Error.Kind)
			}
		}
		if len(res.InputRequests) > 0 {
			// 2026-07-28: the client is asked for approval and retries.
			outcome = string(KindApprovalRequired)
		}
		if res.IsError && outcome == "ok" {
			outcome = string(sandbox.KindInternal)
		}
	}
	span.SetAttributes(attrOutcome.String(outcome), attrCalls.Int(calls))
	if outcome != "ok" && outcome != string(KindApprovalRequired) {
		span.SetAttributes(attrErrorType.String(outcome))
		span.SetStatus(codes.Error, outcome)
	}
	span.End()
	attrs := t.set(tool, outcome)
	t.executions.Add(ctx, 1, attrs)
	t.execDuration.Record(ctx, time.Since(start).Seconds(), attrs)
	t.mu.Lock()
	t.byOutcome[outcome]++
	t.mu.Unlock()
}

// startRun starts the span of one sandbox run.
func (t *telemetry) startRun(ctx context.Context) (context.Context, trace.Span) {
	return t.tracer.Start(ctx, "codemode.run")
}

// endRun ends a run's span. The worker timed the compilation; the rest of
// the wait before the run is admission. Both become child spans placed
// by their timestamps.
func (t *telemetry) endRun(ctx context.Context, span trace.Span, start time.Time, res *sandbox.Result, err error) {
	end := time.Now()
	if res != nil {
		wait := max(end.Sub(start)-res.Duration, 0)
		t.admission.Record(ctx, wait.Seconds())
		if span.IsRecording() {
			ctx := trace.ContextWithSpan(ctx, span)
			_, a := t.tracer.Start(ctx, "codemode.admission", trace.WithTimestamp(start))
			a.End(trace.WithTimestamp(start.Add(wait)))
			cstart := start.Add(wait)
			_, c := t.tracer.Start(ctx, "codemode.compile", trace.WithTimestamp(cstart))
			c.End(trace.WithTimestamp(cstart.Add(res.Compile)))
		}
	}
	if err != nil {
		kind := string(sandbox.KindInternal)
		if se, ok := err.(*sandbox.Error); ok {
			kind = string(se.Kind)
		}
		span.SetAttributes(attrErrorType.String(kind))
		span.SetStatus(codes.Error, kind)
	}
	span.End(trace.WithTimestamp(end))
}

// startCall starts the span of one host call; end records its outcome.
func (t *telemetry) startCall(ctx context.Context, name string, tier catalog.Tier, args json.RawMessage) (context.Context, func(err error)) {
	start := time.Now()
	ctx, span := t.tracer.Start(ctx, "execute_tool "+name)
	if span.IsRecording() {
		span.SetAttributes(
			attrOperation.String("execute_tool"),
			attrToolName.String(name),
			attrTier.String(tier.String()),
			attrArgsBytes.Int(len(args)),
		)
		if t.recordContent {
			span.SetAttributes(attrArgs.String(string(args)))
		}
	}
	return ctx, func(err error) {
		outcome := "ok"
		if err != nil {
			outcome = catalog.CodeOf(err)
			span.SetAttributes(attrErrorType.String(outcome))
			span.SetStatus(codes.Error, outcome)
			t.callErrors.Add(1)
		}
		span.SetAttributes(attrOutcome.String(outcome))
		span.End()
		t.hostCalls.Add(1)
		set := t.set(name, outcome)
		t.calls.Add(ctx, 1, set)
		t.callDuration.Record(ctx, time.Since(start).Seconds(), set)
	}
}

// set returns the metric attributes of a tool or function and an outcome,
// built once: they are the same for most executions.
func (t *telemetry) set(name, outcome string) metric.MeasurementOption {
	key := name + "\x00" + outcome
	if o, ok := t.sets.Load(key); ok {
		return o.(metric.MeasurementOption)
	}
	o := metric.WithAttributeSet(attribute.NewSet(attrToolName.String(name), attrOutcome.String(outcome)))
	t.sets.Store(key, o)
	return o
}

// startApproval starts the span of one wait for the user's approval.
func (t *telemetry) startApproval(ctx context.Context) (context.Context, func(action string)) {
	ctx, span := t.tracer.Start(ctx, "codemode.approval")
	return ctx, func(action string) {
		span.SetAttributes(attrApproval.String(action))
		span.End()
	}
}

// elicitAction names the answer to an elicitation for a span.
func elicitAction(answer *mcp.ElicitResult, err error) string {
	switch {
	case err != nil:
		return "error"
	case answer == nil:
		return "none"
	}
	return answer.Action
}

// observe counts approvals from the audit events that record them.
func (t *telemetry) observe(next AuditSink) AuditSink {
	return AuditFunc(func(ctx context.Context, ev AuditEvent) {
		var action string
		switch ev.Kind {
		case ApprovalRequested:
			action = "asked"
			t.asked.Add(1)
		case ApprovalGranted:
			action = "accepted"
			t.accepted.Add(1)
		case ApprovalDeclined:
			action = "declined"
			t.declined.Add(1)
		}
		if action != "" {
			t.approvals.Add(ctx, 1, metric.WithAttributeSet(attribute.NewSet(attrApproval.String(action))))
		}
		next.Audit(ctx, ev)
	})
}

// limited counts the requests a rate limit refuses.
func (t *telemetry) limited(l httpmw.Limiter) httpmw.Limiter {
	if l == nil {
		return nil
	}
	return countingLimiter{l, t}
}

type countingLimiter struct {
	httpmw.Limiter
	t *telemetry
}

func (c countingLimiter) Take(ctx context.Context, key string, n int) (time.Duration, error) {
	wait, err := c.Limiter.Take(ctx, key, n)
	if err == nil && wait > 0 {
		c.t.limitedN.Add(1)
		c.t.rateLimited.Add(ctx, 1)
	}
	return wait, err
}

// Stats is a snapshot of a Server's activity since New, for hosts that do
// not use OpenTelemetry (the same figures are metrics; see [Telemetry]).
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
