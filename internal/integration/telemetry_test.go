package integration_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/otelcodemode"
)

// The client's trace context, as a W3C traceparent.
const (
	clientTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpanID  = "00f067aa0ba902b7"
	traceparent   = "00-" + clientTraceID + "-" + clientSpanID + "-01"
)

// opsCatalog has host functions that record what their context carries.
type opsCatalog struct {
	*catalog.Catalog
	tracer trace.Tracer // the host's own instrumentation (a "SQL" span)

	mu        sync.Mutex
	deadlines []time.Duration // time left before the deadline, per call
	spans     []trace.SpanContext
}

func newOpsCatalog(t *testing.T, tp trace.TracerProvider) *opsCatalog {
	t.Helper()
	cat, err := catalog.New("ops", &catalog.Options{AllowAnonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	oc := &opsCatalog{Catalog: cat, tracer: tp.Tracer("test-db")}
	type in struct {
		Laps int `json:"laps"`
	}
	type out struct {
		Laps int `json:"laps"`
	}
	catalog.MustAdd(cat, catalog.Func[in, out]{
		Name: "readLaps", Description: "Reads laps.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, a in) (out, error) {
			oc.mu.Lock()
			if d, ok := ctx.Deadline(); ok {
				oc.deadlines = append(oc.deadlines, time.Until(d))
			} else {
				oc.deadlines = append(oc.deadlines, -1)
			}
			oc.spans = append(oc.spans, trace.SpanContextFromContext(ctx))
			oc.mu.Unlock()
			_, q := oc.tracer.Start(ctx, "SELECT laps")
			q.End()
			codemode.ReportProgress(ctx, 1, 2, "laps read")
			return out(a), nil
		},
	})
	catalog.MustAdd(cat, catalog.Func[in, out]{
		Name: "missing", Description: "Always fails.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, a in) (out, error) {
			return out{}, catalog.NotFound("no lap %d", a.Laps)
		},
	})
	return oc
}

// spanTree indexes recorded spans by name.
type spanTree []sdktrace.ReadOnlySpan

func (st spanTree) named(t *testing.T, name string) []sdktrace.ReadOnlySpan {
	t.Helper()
	var out []sdktrace.ReadOnlySpan
	for _, s := range st {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		var names []string
		for _, s := range st {
			names = append(names, s.Name())
		}
		t.Fatalf("no span %q among %q", name, names)
	}
	return out
}

func (st spanTree) one(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	s := st.named(t, name)
	if len(s) != 1 {
		t.Fatalf("%d spans %q, want 1", len(s), name)
	}
	return s[0]
}

func attr(s sdktrace.ReadOnlySpan, key string) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func wantParent(t *testing.T, child, parent sdktrace.ReadOnlySpan) {
	t.Helper()
	if child.Parent().SpanID() != parent.SpanContext().SpanID() || child.SpanContext().TraceID() != parent.SpanContext().TraceID() {
		t.Fatalf("span %q has parent %s, want %q (%s)", child.Name(), child.Parent().SpanID(), parent.Name(), parent.SpanContext().SpanID())
	}
}

const opsCode = `const a = await ops.readLaps({ laps: 3 });
try { await ops.missing({ laps: 9 }); } catch (e) {}
return a.laps;`

// checkTree asserts the span tree of one execution of opsCode whose
// client sent traceparent.
func checkTree(t *testing.T, sr *tracetest.SpanRecorder, oc *opsCatalog, transport string) {
	t.Helper()
	st := spanTree(sr.Ended())
	exec := st.one(t, "tools/call "+codemode.ToolName)
	if exec.SpanKind() != trace.SpanKindServer {
		t.Errorf("execution span kind %v, want server", exec.SpanKind())
	}
	if got := exec.SpanContext().TraceID().String(); got != clientTraceID {
		t.Fatalf("execution trace %s, want the client's %s", got, clientTraceID)
	}
	if got := exec.Parent().SpanID().String(); got != clientSpanID || !exec.Parent().IsRemote() {
		t.Fatalf("execution parent %s (remote %v), want the client's span %s", got, exec.Parent().IsRemote(), clientSpanID)
	}
	for key, want := range map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": codemode.ToolName,
		"gen_ai.operation.name": "execute_tool", "codemode.outcome": "ok", "network.transport": transport,
	} {
		if v, _ := attr(exec, key); v.AsString() != want {
			t.Errorf("execution %s = %q, want %q", key, v.AsString(), want)
		}
	}
	if _, ok := attr(exec, "codemode.code"); ok {
		t.Error("the code is in the span without RecordContent")
	}
	if v, _ := attr(exec, "codemode.code.size"); v.AsInt64() != int64(len(opsCode)) {
		t.Errorf("code size %d, want %d", v.AsInt64(), len(opsCode))
	}
	run := st.one(t, "codemode.run")
	wantParent(t, run, exec)
	wantParent(t, st.one(t, "codemode.admission"), run)
	compile := st.one(t, "codemode.compile")
	wantParent(t, compile, run)
	if compile.EndTime().Sub(compile.StartTime()) <= 0 {
		t.Errorf("compile span lasts %v", compile.EndTime().Sub(compile.StartTime()))
	}
	call := st.one(t, "execute_tool ops.readLaps")
	wantParent(t, call, run)
	for key, want := range map[string]any{
		"gen_ai.tool.name": "ops.readLaps", "codemode.function.tier": "READ-ONLY",
		"codemode.outcome": "ok", "codemode.call.arguments.size": int64(len(`{"laps":3}`)),
	} {
		if v, _ := attr(call, key); v.AsInterface() != want {
			t.Errorf("call %s = %v, want %v", key, v.AsInterface(), want)
		}
	}
	if _, ok := attr(call, "codemode.call.arguments"); ok {
		t.Error("the arguments are in the span without RecordContent")
	}
	failed := st.one(t, "execute_tool ops.missing")
	wantParent(t, failed, run)
	if v, _ := attr(failed, "error.type"); v.AsString() != catalog.CodeNotFound {
		t.Errorf("failed call error.type %q, want %q", v.AsString(), catalog.CodeNotFound)
	}
	// The host's own span nests under the host call.
	wantParent(t, st.one(t, "SELECT laps"), call)

	oc.mu.Lock()
	defer oc.mu.Unlock()
	if len(oc.deadlines) != 1 || oc.deadlines[0] <= 0 || oc.deadlines[0] > 11*time.Second {
		t.Errorf("host context deadline in %v, want within the 10 s limit plus the 1 s grace", oc.deadlines)
	}
	if oc.spans[0].SpanID() != call.SpanContext().SpanID() {
		t.Errorf("host context carries span %s, want the call's %s", oc.spans[0].SpanID(), call.SpanContext().SpanID())
	}
}

// Over HTTP the execution's span continues the client's traceparent
// header; the host call and the host's own span nest under it.
func TestSpanTreeFromHTTPTraceparent(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	oc := newOpsCatalog(t, tp)
	var events []codemode.AuditEvent
	var mu sync.Mutex
	ts := startServerFor(t, oc.Catalog, func(o *codemode.Options) {
		o.Observer = otelcodemode.New(&otelcodemode.Options{TracerProvider: tp})
		o.Audit.Sink = codemode.AuditFunc(func(_ context.Context, ev codemode.AuditEvent) {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
		})
	})
	c := mcp.NewClient(&mcp.Implementation{Name: "trace-client", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint:   ts.URL,
		HTTPClient: &http.Client{Transport: mcptest.Header("Traceparent", traceparent, mcptest.Bearer(ts.token("alice")).Transport)},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res := run(t, cs, opsCode); res.IsError {
		t.Fatal(text(res))
	}
	checkTree(t, sr, oc, "tcp")
	mu.Lock()
	defer mu.Unlock()
	for _, ev := range events {
		if ev.TraceID != clientTraceID {
			t.Errorf("audit %s has trace %s, want %s", ev.Kind, ev.TraceID, clientTraceID)
		}
	}
}

// Over stdio the trace context comes from the request's _meta.
func TestSpanTreeFromMetaOverStdio(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	oc := newOpsCatalog(t, tp)
	srv := newServer(t, oc.Catalog, &codemode.Options{Observer: otelcodemode.New(&otelcodemode.Options{TracerProvider: tp}), Audit: codemode.AuditOptions{Sink: codemode.NoAudit}})
	cs := serveStdio(t, srv)
	params := &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": opsCode},
		Meta: mcp.Meta{"traceparent": traceparent, "tracestate": "vendor=1"}}
	res, err := cs.CallTool(t.Context(), params)
	if err != nil || res.IsError {
		t.Fatalf("%v %s", err, text(res))
	}
	checkTree(t, sr, oc, "pipe")
	exec := spanTree(sr.Ended()).one(t, "tools/call "+codemode.ToolName)
	if got := exec.Parent().TraceState().Get("vendor"); got != "1" {
		t.Errorf("tracestate vendor=%q, want 1", got)
	}
}

// RecordContent puts code and arguments in spans.
func TestSpansRecordContentWhenAsked(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	oc := newOpsCatalog(t, tp)
	srv := newServer(t, oc.Catalog, &codemode.Options{Observer: otelcodemode.New(&otelcodemode.Options{TracerProvider: tp, RecordContent: true}), Audit: codemode.AuditOptions{Sink: codemode.NoAudit}})
	cs := serveStdio(t, srv)
	if res := run(t, cs, opsCode); res.IsError {
		t.Fatal(text(res))
	}
	st := spanTree(sr.Ended())
	if v, _ := attr(st.one(t, "tools/call "+codemode.ToolName), "codemode.code"); v.AsString() != opsCode {
		t.Errorf("codemode.code = %q", v.AsString())
	}
	if v, _ := attr(st.one(t, "execute_tool ops.readLaps"), "codemode.call.arguments"); v.AsString() != `{"laps":3}` {
		t.Errorf("codemode.call.arguments = %q", v.AsString())
	}
	// Without a client trace context the execution starts a trace.
	if st.one(t, "tools/call "+codemode.ToolName).Parent().IsValid() {
		t.Error("execution span has a parent without a client trace context")
	}
}

// Metrics and Stats count executions by outcome, host calls by function
// and outcome, and observe the worker pool.
func TestMetricsAndStats(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	oc := newOpsCatalog(t, noop.NewTracerProvider())
	srv := newServer(t, oc.Catalog, &codemode.Options{Observer: otelcodemode.New(&otelcodemode.Options{MeterProvider: mp}), Audit: codemode.AuditOptions{Sink: codemode.NoAudit}})
	cs := serveStdio(t, srv)
	run(t, cs, opsCode)
	run(t, cs, opsCode)
	if res := run(t, cs, `await ops.missing({ laps: 1 })`); !res.IsError {
		t.Fatal("uncaught host error did not fail")
	}
	if res := run(t, cs, `return (`); !res.IsError {
		t.Fatal("syntax error did not fail")
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					got[m.Name+" "+pointKey(p.Attributes)] += p.Value
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					got[m.Name+" "+pointKey(p.Attributes)] = p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					got[m.Name+" "+pointKey(p.Attributes)] += int64(p.Count)
				}
			}
		}
	}
	for key, want := range map[string]int64{
		"codemode.executions codemode.outcome=ok,gen_ai.tool.name=execute_code":               2,
		"codemode.executions codemode.outcome=RUNTIME,gen_ai.tool.name=execute_code":          1,
		"codemode.executions codemode.outcome=SYNTAX,gen_ai.tool.name=execute_code":           1,
		"codemode.execution.duration codemode.outcome=ok,gen_ai.tool.name=execute_code":       2,
		"codemode.host_calls codemode.outcome=ok,gen_ai.tool.name=ops.readLaps":               2,
		"codemode.host_calls codemode.outcome=not_found,gen_ai.tool.name=ops.missing":         3,
		"codemode.host_call.duration codemode.outcome=not_found,gen_ai.tool.name=ops.missing": 3,
		"codemode.admission.wait ":                    3,
		"codemode.workers codemode.worker.state=idle": 1,
		"codemode.workers codemode.worker.state=busy": 0,
		"codemode.executions.queued ":                 0,
	} {
		if got[key] != want {
			t.Errorf("%s = %d, want %d", key, got[key], want)
		}
	}
	if t.Failed() {
		t.Logf("collected: %v", got)
	}

	st := srv.Stats()
	if st.Executions["ok"] != 2 || st.Executions["RUNTIME"] != 1 || st.Executions["SYNTAX"] != 1 {
		t.Errorf("Stats.Executions = %v", st.Executions)
	}
	if st.HostCalls != 5 || st.HostCallErrors != 3 || st.Sandbox.Workers != 1 || st.Sandbox.Running != 0 {
		t.Errorf("Stats = %+v", st)
	}
}

func pointKey(s attribute.Set) string {
	var parts []string
	for _, kv := range s.ToSlice() {
		parts = append(parts, string(kv.Key)+"="+kv.Value.String())
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// CheckWorker is a readiness check: nil while a worker starts.
func TestCheckWorker(t *testing.T) {
	oc := newOpsCatalog(t, noop.NewTracerProvider())
	srv := newServer(t, oc.Catalog, &codemode.Options{Audit: codemode.AuditOptions{Sink: codemode.NoAudit}})
	if err := srv.CheckWorker(t.Context()); err != nil {
		t.Fatalf("CheckWorker: %v", err)
	}
}
