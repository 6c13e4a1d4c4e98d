package codemode_test

import (
	"context"
	"fmt"
	"log"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

// logObserver records what a Server tells its Observer, in order. It
// embeds NopObserver, as an Observer should; it overrides every method.
type logObserver struct {
	codemode.NopObserver
	mu    sync.Mutex
	lines []string
}

func (o *logObserver) add(format string, args ...any) {
	o.mu.Lock()
	o.lines = append(o.lines, fmt.Sprintf(format, args...))
	o.mu.Unlock()
}

func (o *logObserver) Attach(pool func() sandbox.Stats) (func(), error) {
	o.add("attach: pool reported: %t", pool().Workers > 0)
	return func() { o.add("detach") }, nil
}

func (o *logObserver) Execution(ctx context.Context, e codemode.ExecutionStart) (context.Context, func(codemode.ExecutionEnd)) {
	o.add("execution %s", e.Tool)
	return ctx, func(end codemode.ExecutionEnd) {
		o.add("execution end: %s, failed %t, %d call(s)", end.Outcome, end.Failed, end.Calls)
	}
}

func (o *logObserver) Run(ctx context.Context) (context.Context, func(codemode.RunEnd)) {
	o.add("run")
	return ctx, func(end codemode.RunEnd) { o.add("run end: result %t, error %v", end.Result != nil, end.Err != nil) }
}

type spanKey struct{}

func (o *logObserver) Call(ctx context.Context, c codemode.CallStart) (context.Context, func(error)) {
	o.add("call %s (%s) %s", c.Function, c.Tier, c.Arguments)
	ctx = context.WithValue(ctx, spanKey{}, c.Function)
	return ctx, func(err error) {
		if err != nil {
			o.add("call end: %s", catalog.CodeOf(err))
		} else {
			o.add("call end: ok")
		}
	}
}

func (o *logObserver) TraceID(context.Context) string { return "" }

// An Observer sees each execution, run and host call with its outcome;
// the host function runs in the context the observer returned. Package
// otelcodemode is the OpenTelemetry one.
func ExampleObserver() {
	obs := &logObserver{}
	cat, err := catalog.New("garage", nil)
	if err != nil {
		log.Fatal(err)
	}
	catalog.MustAdd(cat, catalog.Func[lapsIn, int]{
		Name: "countLaps", Description: "Counts laps.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, in lapsIn) (int, error) {
			obs.add("handler sees the observer's context: %t", ctx.Value(spanKey{}) == "garage.countLaps")
			return 3, nil
		},
	})
	driver := catalog.Principal{Subject: "driver-1"}
	srv, err := codemode.New(cat, &codemode.Options{
		Principal: &driver,
		Observer:  obs,
		Sandbox:   codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
		Audit:     codemode.AuditOptions{Sink: codemode.NoAudit},
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	go srv.ServeTransport(ctx, driver, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	code := `return await garage.countLaps({ track: "Spa" })`
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": code}}); err != nil {
		log.Fatal(err)
	}
	cs.Close()
	srv.Close()
	fmt.Println(strings.Join(obs.lines, "\n"))
	fmt.Println(srv.Stats().Executions, srv.Stats().HostCalls)
	// Output:
	// attach: pool reported: true
	// execution execute_code
	// run
	// call garage.countLaps (READ-ONLY) {"track":"Spa"}
	// handler sees the observer's context: true
	// call end: ok
	// run end: result true, error false
	// execution end: ok, failed false, 1 call(s)
	// detach
	// map[ok:1] 1
}

// TestAuditTraceIDFromMeta: without an observer's span, the audit events
// of an execution carry the trace id of the client's traceparent in
// _meta (stdio has no headers); a malformed one gives a random id.
func TestAuditTraceIDFromMeta(t *testing.T) {
	var mu sync.Mutex
	var ids []string
	driver := catalog.Principal{Subject: "driver-1"}
	srv, err := codemode.New(exampleCatalog(), &codemode.Options{
		Principal: &driver,
		Sandbox:   codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
		Audit: codemode.AuditOptions{Sink: codemode.AuditFunc(func(_ context.Context, ev codemode.AuditEvent) {
			if ev.Kind == codemode.ExecutionStarted {
				mu.Lock()
				ids = append(ids, ev.TraceID)
				mu.Unlock()
			}
		})},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	st, ct := mcp.NewInMemoryTransports()
	go srv.ServeTransport(t.Context(), driver, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, tp := range []string{
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01", // all-zero trace id
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", // upper case
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // version ff
	} {
		params := &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": "return 1"}, Meta: mcp.Meta{"traceparent": tp}}
		if _, err := cs.CallTool(t.Context(), params); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ids) != 4 || ids[0] != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatalf("trace ids %q, want the traceparent's first", ids)
	}
	for i, id := range ids[1:] {
		if len(id) != 32 || id == ids[0] || strings.Trim(id, "0") == "" {
			t.Errorf("invalid traceparent %d: trace id %q, want a random one", i+1, id)
		}
	}
}

// An observer whose Attach fails fails New, which releases what it
// started.
func TestObserverAttachErrorFailsNew(t *testing.T) {
	_, err := codemode.New(exampleCatalog(), &codemode.Options{
		Principal: &catalog.Principal{Subject: "x"},
		Observer:  failingObserver{},
		Sandbox:   codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
	})
	if err == nil || !strings.Contains(err.Error(), "Observer: no meter") {
		t.Fatalf("New: %v, want the observer's error", err)
	}
}

type failingObserver struct{ codemode.NopObserver }

func (failingObserver) Attach(func() sandbox.Stats) (func(), error) {
	return nil, fmt.Errorf("no meter")
}
