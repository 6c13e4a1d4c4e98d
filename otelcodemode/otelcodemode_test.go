package otelcodemode_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/otelcodemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

// The spans and metrics themselves are checked against the OpenTelemetry
// SDK in the module internal/integration, which keeps the SDK out of this
// module's go.mod. Here: what holds with the API's no-ops alone.

const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// With no SDK installed, the client's trace context still reaches the
// execution's context (from _meta first, else the HTTP header), so audit
// events and the host's own instrumentation join the client's trace.
func TestTraceIDWithoutSDK(t *testing.T) {
	obs := otelcodemode.New(nil)
	detach, err := obs.Attach(func() sandbox.Stats { return sandbox.Stats{Workers: 1} })
	if err != nil {
		t.Fatal(err)
	}
	defer detach()
	args, _ := json.Marshal(map[string]string{"code": "return 1"})
	for name, req := range map[string]*mcp.CallToolRequest{
		"meta": {Params: &mcp.CallToolParamsRaw{Name: codemode.ToolName, Arguments: args, Meta: mcp.Meta{"traceparent": traceparent}}},
		"header": {Params: &mcp.CallToolParamsRaw{Name: codemode.ToolName, Arguments: args},
			Extra: &mcp.RequestExtra{Header: http.Header{"Traceparent": {traceparent}}}},
	} {
		ctx, end := obs.Execution(context.Background(), codemode.ExecutionStart{Tool: codemode.ToolName, Request: req})
		if got := obs.TraceID(ctx); got != "4bf92f3577b34da6a3ce929d0e0e4736" {
			t.Errorf("%s: TraceID %q, want the client's", name, got)
		}
		end(codemode.ExecutionEnd{Outcome: "ok"})
	}
	ctx, end := obs.Execution(context.Background(), codemode.ExecutionStart{Tool: codemode.ToolName, Request: &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Arguments: args}}})
	if got := obs.TraceID(ctx); got != "" {
		t.Errorf("no trace context: TraceID %q, want none (codemode picks a random one)", got)
	}
	end(codemode.ExecutionEnd{Outcome: "RUNTIME", Failed: true})
}

// BenchmarkPerExecution measures what the instrumentation adds to one
// execution shaped like the coaching script (one tools/call, one sandbox
// run, four host calls) with no SDK installed: the OpenTelemetry API's
// no-ops. What the SDK adds is measured on whole executions by
// BenchmarkExecuteCoachingTelemetry in the module internal/integration.
func BenchmarkPerExecution(b *testing.B) {
	code := `const s = await brakinglab.getSessions({ limit: 1 }); return s;`
	args, _ := json.Marshal(map[string]string{"code": code})
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: codemode.ToolName, Arguments: args, Meta: mcp.Meta{"traceparent": traceparent}}}
	res := &sandbox.Result{Duration: 2 * time.Millisecond, Compile: 100 * time.Microsecond}
	callArgs := json.RawMessage(`{"trackName":"Spa","limit":3}`)
	obs := otelcodemode.New(nil)
	detach, err := obs.Attach(func() sandbox.Stats { return sandbox.Stats{} })
	if err != nil {
		b.Fatal(err)
	}
	defer detach()
	b.ReportAllocs()
	for b.Loop() {
		ctx, endExec := obs.Execution(context.Background(), codemode.ExecutionStart{Tool: codemode.ToolName, Request: req})
		rctx, endRun := obs.Run(ctx)
		for range 4 {
			_, end := obs.Call(rctx, codemode.CallStart{Function: "brakinglab.getSessions", Tier: catalog.ReadOnly, Arguments: callArgs})
			end(nil)
		}
		endRun(codemode.RunEnd{Result: res})
		endExec(codemode.ExecutionEnd{Outcome: "ok", Calls: 4})
	}
}
