package functions_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/chartpng"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/examples/brakinglab/functions"
	"github.com/brakinglab/codemode-go/sandbox"
)

// coachingCharts are the four coaching questions that deserve a chart,
// as a model would write them against the demo data.
var coachingCharts = map[string]string{
	"lap-comparison": `
const s = (await brakinglab.getSessions({ trackName: "Spa", limit: 1 }))[0];
const laps = (await brakinglab.getLaps({ sessionId: s.id, validOnly: true })).sort((a, b) => a.lapTimeMs - b.lapTimeMs);
const [best, worst] = [laps[0], laps[laps.length - 1]];
const c = await brakinglab.compareLaps({ a: { sessionId: s.id, lapNumber: best.lapNumber }, b: { sessionId: s.id, lapNumber: worst.lapNumber } });
await codemode.chart({ title: "Lap " + worst.lapNumber + " against lap " + best.lapNumber + ", corner by corner",
  x: { title: "Corner", categories: c.corners.map(k => k.cornerName) }, y: { title: "Time lost", unit: "s" }, y2: { title: "Cumulative", unit: "s" },
  series: [{ name: "time lost", kind: "bar", y: c.corners.map(k => k.deltaMs / 1000) },
           { name: "cumulative", axis: "y2", y: c.corners.map(k => k.cumulativeDeltaMs / 1000) }] });
return c.deltaMs;`,
	"speed-trace": `
const s = (await brakinglab.getSessions({ trackName: "Spa", limit: 1 }))[0];
const laps = (await brakinglab.getLaps({ sessionId: s.id, validOnly: true })).sort((a, b) => a.lapTimeMs - b.lapTimeMs);
const [a, b] = await Promise.all([laps[0], laps[laps.length - 1]].map(l =>
  brakinglab.getLapTelemetry({ sessionId: s.id, lapNumber: l.lapNumber, channels: ["speedKph"], resolutionM: 20 })));
const track = (await brakinglab.getTracks()).find(t => t.name === s.trackName);
await codemode.chart({ title: "Speed trace at " + s.trackName + ": lap " + a.lapNumber + " and lap " + b.lapNumber,
  x: { title: "Distance", unit: "m" }, y: { title: "Speed", unit: "km/h" },
  series: [a, b].map(l => ({ name: "lap " + l.lapNumber, x: l.distanceM, y: l.speedKph })),
  annotations: track.corners.map(c => ({ x: c.apexM, label: c.name })) });
return [a.lapTimeMs, b.lapTimeMs];`,
	"braking-consistency": `
const s = (await brakinglab.getSessions({ trackName: "Spa", limit: 1 }))[0];
const z = await brakinglab.getBrakingZones({ sessionId: s.id });
await codemode.chart({ title: "Braking consistency at " + s.trackName,
  x: { title: "Corner", categories: z.map(c => c.cornerName) }, y: { title: "Brake point spread", unit: "m" }, y2: { title: "Consistency", unit: "%" },
  series: [{ name: "spread", kind: "bar", y: z.map(c => c.brakePointSpreadM) },
           { name: "consistency", kind: "scatter", axis: "y2", y: z.map(c => c.consistencyPct) }] });
return z.length;`,
	"progress": `
const p = await brakinglab.getProgress({ trackName: "Spa" });
const s = p.sessions.filter(s => s.bestLapMs && s.averageLapMs);
await codemode.chart({ title: "Progress at " + p.trackName + " (" + p.trend + ")",
  x: { title: "Session" }, y: { title: "Lap time", unit: "s" },
  series: [{ name: "best lap", x: s.map((_, i) => i + 1), y: s.map(s => s.bestLapMs / 1000) },
           { name: "average lap", kind: "scatter", x: s.map((_, i) => i + 1), y: s.map(s => s.averageLapMs / 1000) }] });
return p.trend;`,
}

// chartClient connects the go-sdk client, in memory, to a codemode server
// over the demo data acting as the demo driver; caps declares extensions.
func chartClient(t *testing.T, caps *mcp.ClientCapabilities) *mcp.ClientSession {
	t.Helper()
	cm, err := codemode.New(cat, &codemode.Options{Example: functions.Example,
		Principal:     &catalog.Principal{Subject: demoU.ID, ClientID: "test", Scopes: []string{functions.ScopeRead, functions.ScopeWrite}},
		Sandbox:       codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
		ChartRenderer: chartpng.New(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cm.Close() })
	ct, stt := mcp.NewInMemoryTransports()
	if _, err := cm.MCPServer().Connect(context.Background(), stt, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "charts", Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestCoachingCharts draws the four coaching charts from the demo data.
// CHART_DIR=dir writes them there as PNG files, to look at.
func TestCoachingCharts(t *testing.T) {
	cs := chartClient(t, nil)
	for name, code := range coachingCharts {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": code}})
		if err != nil {
			t.Fatal(err)
		}
		txt := res.Content[0].(*mcp.TextContent).Text
		if res.IsError || len(res.Content) != 2 || !strings.HasPrefix(txt, "Chart 1: ") {
			t.Fatalf("%s: %s", name, txt)
		}
		ic, ok := res.Content[1].(*mcp.ImageContent)
		if !ok {
			t.Fatalf("%s: no image", name)
		}
		if _, err := png.Decode(bytes.NewReader(ic.Data)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %s", name, strings.SplitN(txt, "\n", 2)[0])
		if dir := os.Getenv("CHART_DIR"); dir != "" {
			if err := os.WriteFile(filepath.Join(dir, name+".png"), ic.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
