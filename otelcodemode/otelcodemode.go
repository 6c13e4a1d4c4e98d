// Package otelcodemode traces and measures a codemode [codemode.Server]
// with OpenTelemetry: it is a [codemode.Observer], set in
// codemode.Options.Observer:
//
//	srv, err := codemode.New(cat, &codemode.Options{Observer: otelcodemode.New(nil)})
//
// It is a module of its own (github.com/brakinglab/codemode-go/otelcodemode),
// as otelconnect is for connect-go, so that a service that does not use
// OpenTelemetry does not carry it. It uses the OpenTelemetry API only:
// until the host installs an SDK (globally with otel.SetTracerProvider and
// otel.SetMeterProvider, or in [Options]), every span and instrument is a
// no-op.
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
// gen_ai.tool.name, gen_ai.operation.name, mcp.session.id, error.type)
// plus codemode.* attributes for what they do not cover. Code, arguments
// and results stay out of spans unless [Options.RecordContent] is set.
//
// Metrics: codemode.executions and codemode.execution.duration (by tool
// and outcome), codemode.host_calls and codemode.host_call.duration (by
// function and outcome), codemode.admission.wait, codemode.rate_limited,
// codemode.approvals (by action: asked, accepted, declined), and the
// gauges codemode.workers (by state: busy, idle) and
// codemode.executions.queued.
package otelcodemode

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

// Options configures an [Observer]. The zero value (or nil) uses the
// global providers and W3C propagation, and records no content.
type Options struct {
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

// InstrumentationName names the tracer and meter.
const InstrumentationName = "github.com/brakinglab/codemode-go/otelcodemode"

// Attribute keys.
const (
	attrTier       = attribute.Key("codemode.function.tier")
	attrOutcome    = attribute.Key("codemode.outcome")
	attrArgsBytes  = attribute.Key("codemode.call.arguments.size")
	attrArgs       = attribute.Key("codemode.call.arguments")
	attrCode       = attribute.Key("codemode.code")
	attrCodeBytes  = attribute.Key("codemode.code.size")
	attrCalls      = attribute.Key("codemode.calls")
	attrApproval   = attribute.Key("codemode.approval.action")
	attrMCPMethod  = attribute.Key("mcp.method.name")
	attrMCPSession = attribute.Key("mcp.session.id")
	attrToolName   = attribute.Key("gen_ai.tool.name")
	attrOperation  = attribute.Key("gen_ai.operation.name")
	attrErrorType  = attribute.Key("error.type")
	attrTransport  = attribute.Key("network.transport")
)

// Observer is a [codemode.Observer] that makes OpenTelemetry spans and
// metrics. Make it with [New]; use one per codemode.Server.
type Observer struct {
	codemode.NopObserver // methods added to codemode.Observer later

	tracer        trace.Tracer
	meter         metric.Meter
	prop          propagation.TextMapPropagator
	recordContent bool
	err           error // from making the instruments, reported by Attach

	executions   metric.Int64Counter
	execDuration metric.Float64Histogram
	calls        metric.Int64Counter
	callDuration metric.Float64Histogram
	admission    metric.Float64Histogram
	rateLimited  metric.Int64Counter
	approvals    metric.Int64Counter
	sets         sync.Map // name + outcome → metric.MeasurementOption
}

var _ codemode.Observer = (*Observer)(nil)

// New returns an Observer; opts may be nil. An error making the
// instruments is reported when codemode.New attaches it.
func New(opts *Options) *Observer {
	var o Options
	if opts != nil {
		o = *opts
	}
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
	t := &Observer{tracer: tp.Tracer(InstrumentationName), meter: mp.Meter(InstrumentationName), prop: prop, recordContent: o.RecordContent}
	t.err = t.instruments()
	return t
}

// instruments makes the counters and histograms.
func (t *Observer) instruments() error {
	m := t.meter
	var err error
	seconds := metric.WithExplicitBucketBoundaries(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
	if t.executions, err = m.Int64Counter("codemode.executions", metric.WithUnit("{execution}"),
		metric.WithDescription("Executions of code tools, by tool and outcome (ok, or the error kind the model read).")); err != nil {
		return err
	}
	if t.execDuration, err = m.Float64Histogram("codemode.execution.duration", metric.WithUnit("s"), seconds,
		metric.WithDescription("Duration of executions, from the tools/call to its result, approvals included.")); err != nil {
		return err
	}
	if t.calls, err = m.Int64Counter("codemode.host_calls", metric.WithUnit("{call}"),
		metric.WithDescription("Host function calls, by function and outcome (ok, or the catalog error code).")); err != nil {
		return err
	}
	if t.callDuration, err = m.Float64Histogram("codemode.host_call.duration", metric.WithUnit("s"), seconds,
		metric.WithDescription("Duration of host function calls, by function and outcome.")); err != nil {
		return err
	}
	if t.admission, err = m.Float64Histogram("codemode.admission.wait", metric.WithUnit("s"), seconds,
		metric.WithDescription("Time an execution waited for a free sandbox worker.")); err != nil {
		return err
	}
	if t.rateLimited, err = m.Int64Counter("codemode.rate_limited", metric.WithUnit("{request}"),
		metric.WithDescription("HTTP requests refused by the per-principal execution rate limit.")); err != nil {
		return err
	}
	if t.approvals, err = m.Int64Counter("codemode.approvals", metric.WithUnit("{approval}"),
		metric.WithDescription("Approvals asked of the user and their answers (action: asked, accepted, declined).")); err != nil {
		return err
	}
	return nil
}

// Attach implements [codemode.Observer]: it registers the gauges of the
// server's worker pool, which detach unregisters.
func (t *Observer) Attach(pool func() sandbox.Stats) (detach func(), err error) {
	if t.err != nil {
		return nil, t.err
	}
	if pool == nil {
		return nil, errors.New("otelcodemode: Attach: no pool")
	}
	m := t.meter
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
	reg, err := m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		st := pool()
		o.ObserveInt64(workers, int64(st.Running), busy)
		o.ObserveInt64(workers, int64(max(st.Workers-st.Running, 0)), idle)
		o.ObserveInt64(queued, int64(st.Waiting))
		return nil
	}, workers, queued)
	if err != nil {
		return nil, err
	}
	return func() { _ = reg.Unregister() }, nil
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
func (t *Observer) extract(ctx context.Context, e codemode.ExecutionStart) context.Context {
	req := e.Request
	if req == nil {
		return ctx
	}
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

// Execution implements [codemode.Observer]: the SERVER span of one
// tools/call and the execution metrics.
func (t *Observer) Execution(ctx context.Context, e codemode.ExecutionStart) (context.Context, func(codemode.ExecutionEnd)) {
	start := time.Now()
	ctx = t.extract(ctx, e)
	ctx, span := t.tracer.Start(ctx, "tools/call "+e.Tool, trace.WithSpanKind(trace.SpanKindServer))
	if span.IsRecording() {
		t.executionAttributes(span, e)
	}
	return ctx, func(end codemode.ExecutionEnd) {
		span.SetAttributes(attrOutcome.String(end.Outcome), attrCalls.Int(end.Calls))
		if end.Failed {
			span.SetAttributes(attrErrorType.String(end.Outcome))
			span.SetStatus(codes.Error, end.Outcome)
		}
		span.End()
		attrs := t.set(e.Tool, end.Outcome)
		t.executions.Add(ctx, 1, attrs)
		t.execDuration.Record(ctx, time.Since(start).Seconds(), attrs)
	}
}

func (t *Observer) executionAttributes(span trace.Span, e codemode.ExecutionStart) {
	req := e.Request
	transport := "pipe"
	if req != nil && req.Extra != nil && req.Extra.Header != nil {
		transport = "tcp"
	}
	span.SetAttributes(
		attrMCPMethod.String("tools/call"),
		attrToolName.String(e.Tool),
		attrOperation.String("execute_tool"),
		attrTransport.String(transport),
	)
	if req == nil {
		return
	}
	if req.Session != nil {
		if id := req.Session.ID(); id != "" {
			span.SetAttributes(attrMCPSession.String(id))
		}
	}
	var in struct {
		Code *string `json:"code"`
	}
	if req.Params != nil && json.Unmarshal(req.Params.Arguments, &in) == nil && in.Code != nil {
		span.SetAttributes(attrCodeBytes.Int(len(*in.Code)))
		if t.recordContent {
			span.SetAttributes(attrCode.String(*in.Code))
		}
	}
}

// Run implements [codemode.Observer]: the span of one sandbox run, with
// its admission and compile spans placed by the times the run reports.
func (t *Observer) Run(ctx context.Context) (context.Context, func(codemode.RunEnd)) {
	start := time.Now()
	parent := ctx
	ctx, span := t.tracer.Start(ctx, "codemode.run")
	return ctx, func(r codemode.RunEnd) {
		end := time.Now()
		if res := r.Result; res != nil {
			wait := max(end.Sub(start)-res.Duration, 0)
			t.admission.Record(parent, wait.Seconds())
			if span.IsRecording() {
				_, a := t.tracer.Start(ctx, "codemode.admission", trace.WithTimestamp(start))
				a.End(trace.WithTimestamp(start.Add(wait)))
				cstart := start.Add(wait)
				_, c := t.tracer.Start(ctx, "codemode.compile", trace.WithTimestamp(cstart))
				c.End(trace.WithTimestamp(cstart.Add(res.Compile)))
			}
		}
		if r.Err != nil {
			kind := string(sandbox.KindInternal)
			var se *sandbox.Error
			if errors.As(r.Err, &se) {
				kind = string(se.Kind)
			}
			span.SetAttributes(attrErrorType.String(kind))
			span.SetStatus(codes.Error, kind)
		}
		span.End(trace.WithTimestamp(end))
	}
}

// Call implements [codemode.Observer]: the span of one host call, which
// the host function's context carries, and the call metrics.
func (t *Observer) Call(ctx context.Context, c codemode.CallStart) (context.Context, func(error)) {
	start := time.Now()
	ctx, span := t.tracer.Start(ctx, "execute_tool "+c.Function)
	if span.IsRecording() {
		span.SetAttributes(
			attrOperation.String("execute_tool"),
			attrToolName.String(c.Function),
			attrTier.String(c.Tier.String()),
			attrArgsBytes.Int(len(c.Arguments)),
		)
		if t.recordContent {
			span.SetAttributes(attrArgs.String(string(c.Arguments)))
		}
	}
	return ctx, func(err error) {
		outcome := "ok"
		if err != nil {
			outcome = catalog.CodeOf(err)
			span.SetAttributes(attrErrorType.String(outcome))
			span.SetStatus(codes.Error, outcome)
		}
		span.SetAttributes(attrOutcome.String(outcome))
		span.End()
		set := t.set(c.Function, outcome)
		t.calls.Add(ctx, 1, set)
		t.callDuration.Record(ctx, time.Since(start).Seconds(), set)
	}
}

// set returns the metric attributes of a tool or function and an outcome,
// built once: they are the same for most executions.
func (t *Observer) set(name, outcome string) metric.MeasurementOption {
	key := name + "\x00" + outcome
	if o, ok := t.sets.Load(key); ok {
		return o.(metric.MeasurementOption)
	}
	o := metric.WithAttributeSet(attribute.NewSet(attrToolName.String(name), attrOutcome.String(outcome)))
	t.sets.Store(key, o)
	return o
}

// Approval implements [codemode.Observer]: the span of one wait for the
// user's answer.
func (t *Observer) Approval(ctx context.Context) (context.Context, func(action string)) {
	ctx, span := t.tracer.Start(ctx, "codemode.approval")
	return ctx, func(action string) {
		span.SetAttributes(attrApproval.String(action))
		span.End()
	}
}

// Event implements [codemode.Observer]: codemode.rate_limited and
// codemode.approvals.
func (t *Observer) Event(ctx context.Context, ev codemode.ObservedEvent) {
	var action string
	switch ev {
	case codemode.EventRateLimited:
		t.rateLimited.Add(ctx, 1)
		return
	case codemode.EventApprovalAsked:
		action = "asked"
	case codemode.EventApprovalAccepted:
		action = "accepted"
	case codemode.EventApprovalDeclined:
		action = "declined"
	default:
		return
	}
	t.approvals.Add(ctx, 1, metric.WithAttributeSet(attribute.NewSet(attrApproval.String(action))))
}

// TraceID implements [codemode.Observer]: the trace id of ctx's span, or
// of the client's trace context when no tracer records.
func (t *Observer) TraceID(ctx context.Context) string {
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		return sc.TraceID().String()
	}
	return ""
}
