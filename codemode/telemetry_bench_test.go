package codemode

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/sandbox"
)

// BenchmarkTelemetryPerExecution measures what the instrumentation adds to
// one execution shaped like the coaching script (one tools/call, one
// sandbox run, four host calls) with no provider installed: the
// OpenTelemetry API's no-ops, what every host pays. Compare ns/op with
// BenchmarkExecuteCoaching's p50. What the SDK adds (a batching exporter
// and a meter provider) is measured on whole executions by
// BenchmarkExecuteCoachingTelemetry in the module internal/integration,
// which keeps the SDK out of this module's go.mod.
func BenchmarkTelemetryPerExecution(b *testing.B) {
	sb, err := sandbox.New(&sandbox.Options{Mode: sandbox.ModeInProcess})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	code := `const s = await brakinglab.getSessions({ limit: 1 }); return s;`
	args, _ := json.Marshal(map[string]string{"code": code})
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: ToolName, Arguments: args, Meta: mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}
	res := &sandbox.Result{Duration: 2 * time.Millisecond, Compile: 100 * time.Microsecond}
	result := &mcp.CallToolResult{StructuredContent: structured{}}
	callArgs := json.RawMessage(`{"trackName":"Spa","limit":3}`)

	for _, name := range []string{"provider=none"} {
		b.Run(name, func(b *testing.B) {
			var o Telemetry // none: the global providers, no-ops
			t, err := newTelemetry(o, sb)
			if err != nil {
				b.Fatal(err)
			}
			defer t.close()
			b.ReportAllocs()
			for b.Loop() {
				start := time.Now()
				ctx, span := t.startExecution(context.Background(), req, ToolName)
				rctx, run := t.startRun(ctx)
				for range 4 {
					_, end := t.startCall(rctx, "brakinglab.getSessions", catalog.ReadOnly, callArgs)
					end(nil)
				}
				t.endRun(ctx, run, start, res, nil)
				t.endExecution(ctx, span, ToolName, start, result)
			}
		})
	}
}
