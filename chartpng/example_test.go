package chartpng_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"log"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/chartpng"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/codemodetest"
	"github.com/brakinglab/codemode-go/sandbox"
)

// A server given the renderer sends a client without the MCP Apps
// extension each chart of codemode.chart as a PNG after the text; the
// specs stay in structuredContent.charts.
func Example() {
	cat, err := catalog.New("garage", nil)
	if err != nil {
		log.Fatal(err)
	}
	catalog.MustAdd(cat, catalog.Func[struct{}, []float64]{
		Name:        "getLapTimes",
		Description: "Lists the lap times at Spa, in seconds.",
		Tier:        catalog.ReadOnly,
		Handler:     func(context.Context, struct{}) ([]float64, error) { return []float64{92.5, 91.8, 92.1}, nil },
	})
	driver := catalog.Principal{Subject: "driver-1"}
	srv, err := codemode.New(cat, &codemode.Options{
		Principal:     &driver,
		Audit:         codemode.AuditOptions{Sink: codemode.NoAudit},
		Sandbox:       codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
		ChartRenderer: chartpng.New(), // the one line
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

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `
const times = await garage.getLapTimes({});
await codemode.chart({ title: "Lap times at Spa", x: { title: "Lap" }, y: { title: "Time", unit: "s" },
  series: [{ name: "lap time", kind: "bar", x: times.map((_, i) => i + 1), y: times }] });
return times.length;`}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.SplitN(res.Content[0].(*mcp.TextContent).Text, "\n", 2)[0])
	ic := res.Content[1].(*mcp.ImageContent)
	img, err := png.Decode(bytes.NewReader(ic.Data))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ic.MIMEType, img.Bounds().Size())
	// Output:
	// Chart 1: "Lap times at Spa": bar chart, 1 series, 3 points, shown to the user as an image.
	// image/png (960,540)
}
