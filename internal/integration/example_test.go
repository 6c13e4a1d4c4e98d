package integration_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/codemodetest"
	"github.com/brakinglab/codemode-go/otelcodemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

// A host installs an OpenTelemetry SDK (here an in-memory recorder; in
// production an exporter) and reads Stats without one.
func Example_telemetry() {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	driver := catalog.Principal{Subject: "driver-1"}
	srv, err := codemode.New(exampleCatalog(), &codemode.Options{
		Principal: &driver,
		Observer:  otelcodemode.New(&otelcodemode.Options{TracerProvider: tp}),
		Sandbox:   codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
		Audit:     codemode.AuditOptions{Sink: codemode.NoAudit},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	cs, err := codemodetest.Connect(ctx, srv, driver, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	params := &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `return (await garage.getLaps({ track: "Spa" })).length`},
		// A client's trace context, on any transport.
		Meta: mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}
	if _, err := cs.CallTool(ctx, params); err != nil {
		log.Fatal(err)
	}
	// In the order they ended: the run's admission and compile spans are
	// placed by the times the run reported.
	for _, s := range rec.Ended() {
		fmt.Println(s.Name(), s.SpanContext().TraceID())
	}
	fmt.Println(srv.Stats().Executions, srv.Stats().HostCalls)
	// Output:
	// execute_tool garage.getLaps 4bf92f3577b34da6a3ce929d0e0e4736
	// codemode.admission 4bf92f3577b34da6a3ce929d0e0e4736
	// codemode.compile 4bf92f3577b34da6a3ce929d0e0e4736
	// codemode.run 4bf92f3577b34da6a3ce929d0e0e4736
	// tools/call execute_code 4bf92f3577b34da6a3ce929d0e0e4736
	// map[ok:1] 1
}
