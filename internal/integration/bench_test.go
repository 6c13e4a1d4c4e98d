package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/otelcodemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

// benchDir holds the coaching script and its fixture, shared with
// codemode's BenchmarkExecuteCoaching. This module is only ever used
// inside the repository, so it reads them there.
const benchDir = "../../codemode/testdata/bench/"

// BenchmarkExecuteCoachingTelemetry is codemode's BenchmarkExecuteCoaching
// with one client: without an observer (off), with otelcodemode and no SDK
// (none: the API's no-ops) and with the OpenTelemetry SDK installed (every
// span to a batching exporter, every instrument to a meter provider), in
// the same run: the differences are what otelcodemode and the SDK add to
// an execution. It was BenchmarkExecuteCoaching's telemetry=sdk-batch
// variants, which moved here with the SDK. The fixture functions return
// the same JSON; they are schema functions here, not Go types.
func BenchmarkExecuteCoachingTelemetry(b *testing.B) {
	for _, mode := range []sandbox.Mode{sandbox.ModeWorker, sandbox.ModeInProcess} {
		for _, name := range []string{"off", "none", "sdk-batch"} {
			b.Run(fmt.Sprintf("mode=%s/clients=1/telemetry=%s", mode, name), func(b *testing.B) {
				var obs codemode.Observer
				switch name {
				case "none":
					obs = otelcodemode.New(nil)
				case "sdk-batch":
					tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardSpans{}))
					defer tp.Shutdown(context.Background())
					mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
					defer mp.Shutdown(context.Background())
					obs = otelcodemode.New(&otelcodemode.Options{TracerProvider: tp, MeterProvider: mp})
				}
				benchCoaching(b, mode, obs)
			})
		}
	}
}

// discardSpans is a span exporter that drops what the batcher hands it.
type discardSpans struct{}

func (discardSpans) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardSpans) Shutdown(context.Context) error                             { return nil }

// fixtureCatalog serves the fixture: each function returns its canned
// JSON whatever the arguments.
func fixtureCatalog(b *testing.B) *catalog.Catalog {
	var fx map[string]json.RawMessage
	data, err := os.ReadFile(benchDir + "fixture.json")
	if err == nil {
		err = json.Unmarshal(data, &fx)
	}
	if err != nil {
		b.Fatal(err)
	}
	cat, err := catalog.New("brakinglab", nil)
	if err != nil {
		b.Fatal(err)
	}
	for name, out := range fx {
		tier := catalog.ReadOnly
		if name == "saveCoachingReport" {
			tier = catalog.Creative
		}
		catalog.MustAddSchema(cat, catalog.SchemaFunc{
			Name: name, Description: "Fixture " + name + ".", Tier: tier,
			InputSchema: json.RawMessage(fixtureInputs[name]),
			Handler:     func(context.Context, json.RawMessage) (json.RawMessage, error) { return out, nil },
		})
	}
	return cat
}

// fixtureInputs are the arguments the coaching script passes.
var fixtureInputs = map[string]string{
	"getSessions":        `{"type":"object","properties":{"trackName":{"type":"string"},"limit":{"type":"integer"}}}`,
	"getWeakCorners":     `{"type":"object","properties":{"trackName":{"type":"string"},"limit":{"type":"integer"}}}`,
	"getBrakingZones":    `{"type":"object","properties":{"sessionId":{"type":"string"}}}`,
	"saveCoachingReport": `{"type":"object","properties":{"sessionId":{"type":"string"},"overview":{"type":"object"},"pace":{"type":"object"},"corners":{"type":"array"},"actionItems":{"type":"array"}}}`,
}

func benchCoaching(b *testing.B, mode sandbox.Mode, obs codemode.Observer) {
	hs := httptest.NewUnstartedServer(nil)
	endpoint := "http://" + hs.Listener.Addr().String() + "/mcp"
	code, err := os.ReadFile(benchDir + "coaching.ts")
	if err != nil {
		b.Fatal(err)
	}
	p := catalog.Principal{Subject: "bench", ClientID: "test-client"}
	srv, err := codemode.New(fixtureCatalog(b), &codemode.Options{
		Sandbox:    codemode.SandboxOptions{Mode: mode},
		RateLimits: codemode.RateLimitOptions{RatePerSecond: -1, RequestsPerSecond: -1},
		Logger:     slog.New(slog.DiscardHandler),
		Audit:      codemode.AuditOptions{Sink: codemode.AuditFunc(func(context.Context, codemode.AuditEvent) {})},
		Principal:  &p,
		Observer:   obs,
	})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	hs.Config.Handler = srv.Handler()
	hs.Start()
	defer hs.Close()
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: transport}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	call := func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": string(code)}})
		if err != nil || res.IsError {
			b.Fatalf("%v %s", err, text(res))
		}
	}
	for range 20 { // warm up: compile cache, connections
		call()
	}
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		t0 := time.Now()
		call()
		durations = append(durations, time.Since(t0))
	}
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "exec/s")
}
