package codemode

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/sandbox"
)

// discard is a span exporter that drops what the batcher hands it.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

// BenchmarkTelemetryPerExecution measures what the instrumentation adds to
// one execution shaped like the coaching script (one tools/call, one
// sandbox run, four host calls): with no provider installed (the
// OpenTelemetry API's no-ops) and with the SDK, a batching exporter and a
// meter provider. Compare ns/op with BenchmarkExecuteCoaching's p50.
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

	for _, c := range []struct {
		name string
		sdk  bool
	}{{"provider=none", false}, {"provider=sdk-batch", true}} {
		b.Run(c.name, func(b *testing.B) {
			var o Telemetry // none: the global providers, no-ops
			if c.sdk {
				tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discard{}))
				defer tp.Shutdown(context.Background())
				mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
				defer mp.Shutdown(context.Background())
				o = Telemetry{TracerProvider: tp, MeterProvider: mp}
			}
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
