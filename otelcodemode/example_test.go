package otelcodemode_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/codemodetest"
	"github.com/brakinglab/codemode-go/otelcodemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

// A host sets the observer in one line; here no SDK is installed, so the
// spans are no-ops, yet the client's trace context (in _meta, on any
// transport) reaches the host function and the audit events. With an SDK
// (otel.SetTracerProvider, or Options.TracerProvider) the same code
// records the spans.
func ExampleNew() {
	cat, err := catalog.New("garage", nil)
	if err != nil {
		log.Fatal(err)
	}
	type in struct{}
	catalog.MustAdd(cat, catalog.Func[in, string]{Name: "whoTraces", Description: "Returns the trace id of its context.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, _ in) (string, error) {
			return otelcodemode.New(nil).TraceID(ctx), nil
		}})
	driver := catalog.Principal{Subject: "driver-1"}
	srv, err := codemode.New(cat, &codemode.Options{
		Principal: &driver,
		Observer:  otelcodemode.New(nil), // the global providers
		Sandbox:   codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
		Audit: codemode.AuditOptions{Sink: codemode.AuditFunc(func(_ context.Context, ev codemode.AuditEvent) {
			if ev.Kind == codemode.ExecutionStarted {
				fmt.Println("audit:", ev.TraceID)
			}
		})},
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
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName,
		Arguments: map[string]any{"code": `return await garage.whoTraces({})`},
		Meta:      mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// audit: 4bf92f3577b34da6a3ce929d0e0e4736
	// Result:
	// "4bf92f3577b34da6a3ce929d0e0e4736"
}
