package codemode_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/codemodetest"
	"github.com/brakinglab/codemode-go/sandbox"
)

// A script shows the user a chart with codemode.chart. A client that
// declares the MCP Apps extension sees _meta.ui.resourceUri on the tool
// and draws the specs of structuredContent.charts in the view at
// ChartViewURI. A client without it gets each chart as a PNG after the
// text when the server has a renderer (Options.ChartRenderer, for example
// chartpng.New() from the module github.com/brakinglab/codemode-go/chartpng);
// this server has none, so the model is told the user did not see it.
func Example_chart() {
	driver := catalog.Principal{Subject: "driver-1"}
	srv, err := codemode.New(exampleCatalog(), &codemode.Options{Principal: &driver, Audit: codemode.AuditOptions{Sink: codemode.NoAudit}, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}})
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

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `
const laps = await garage.getLaps({ track: "Spa" });
await codemode.chart({ title: "Lap times at Spa", x: { title: "Lap" }, y: { title: "Time", unit: "s" },
  series: [{ name: "lap time", kind: "bar", x: laps.map(l => l.number), y: laps.map(l => l.timeMs / 1000) }] });
return laps.length;`}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.SplitN(res.Content[0].(*mcp.TextContent).Text, "\n", 2)[0])
	fmt.Println(len(res.Content), "content item")
	// Output:
	// Chart 1: "Lap times at Spa": bar chart, 1 series, 3 points, not shown to the user: their client does not display charts and this server draws no images.
	// 1 content item
}
