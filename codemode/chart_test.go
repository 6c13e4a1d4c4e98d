package codemode_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/chart"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

// speedTrace is a script that charts two laps' speed over distance with
// the delta on a second axis and corners annotated.
const speedTrace = `
const d = Array.from({ length: 400 }, (_, i) => i * 10);
const note = await codemode.chart({
  title: "Speed trace", x: { title: "Distance", unit: "m" }, y: { title: "Speed", unit: "km/h" }, y2: { title: "Delta", unit: "s" },
  series: [
    { name: "lap 3", x: d, y: d.map(x => 180 + 80 * Math.sin(x / 300)) },
    { name: "lap 7", x: d, y: d.map(x => 182 + 80 * Math.sin(x / 300 + 0.1)) },
    { name: "delta", axis: "y2", x: d, y: d.map(x => x / 4000) },
  ],
  annotations: [{ x: 400, label: "La Source" }, { x: 1800, label: "Eau Rouge" }],
});
await codemode.chart({ title: "Brake points", x: { categories: ["T1", "T2", "T3"] }, y: { title: "Brake point", unit: "m" },
  series: [{ name: "best", kind: "bar", y: [110, 80, 95] }, { name: "mean", kind: "scatter", y: [104, 85, 90] }] });
return note;`

// stubRenderer draws every chart as a blank image of 16×9 pixels and
// records the specs it was given. The gonum/plot renderer is a module of
// its own (chartpng), whose tests draw these scripts for real.
type stubRenderer struct {
	mu    sync.Mutex
	specs []*chart.Spec
}

func (r *stubRenderer) RenderPNG(s *chart.Spec) ([]byte, error) {
	r.mu.Lock()
	r.specs = append(r.specs, s)
	r.mu.Unlock()
	return stubPNG(), nil
}

// stubPNG is the image stubRenderer draws.
func stubPNG() []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 16, 9))); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func TestChartImageFallback(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeWorker, sandbox.ModeInProcess} {
		t.Run(mode.String(), func(t *testing.T) {
			r := &stubRenderer{}
			ts := startServer(t, func(o *codemode.Options) { o.Sandbox.Mode = mode; o.ChartRenderer = r })
			cs := ts.connect(t, ts.token("alice", allScopes...), nil)
			tl, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if m := tl.Tools[0].Meta; m["ui"] != nil || m["ui/resourceUri"] != nil {
				t.Errorf("a client without MCP Apps got _meta %v", m)
			}
			res := run(t, cs, speedTrace)
			if res.IsError {
				t.Fatalf("error: %s", text(res))
			}
			var images []*mcp.ImageContent
			for _, c := range res.Content {
				if ic, ok := c.(*mcp.ImageContent); ok {
					images = append(images, ic)
				}
			}
			if len(images) != 2 {
				t.Fatalf("%d images, want 2: %s", len(images), text(res))
			}
			for _, ic := range images {
				if ic.MIMEType != "image/png" {
					t.Errorf("MIME type %q", ic.MIMEType)
				}
				img, err := png.Decode(bytes.NewReader(ic.Data))
				if err != nil {
					t.Fatalf("PNG: %v", err)
				}
				if sz := img.Bounds().Size(); sz.X != 16 || sz.Y != 9 {
					t.Errorf("image %v, want the renderer's 16x9", sz)
				}
			}
			if len(r.specs) != 2 || r.specs[0].Title != "Speed trace" || len(r.specs[0].Series[2].Y) != 400 || r.specs[1].X.Categories[2] != "T3" {
				t.Errorf("the renderer got %d specs: %+v", len(r.specs), r.specs)
			}
			txt := text(res)
			for _, want := range []string{
				`Chart 1: "Speed trace": line chart, 3 series, 1200 points, shown to the user as an image.`,
				`Chart 2: "Brake points": mixed chart, 2 series, 6 points, shown to the user as an image.`,
				`chart 1 added: \"Speed trace\"`,
			} {
				if !strings.Contains(txt, want) {
					t.Errorf("text lacks %q:\n%s", want, txt)
				}
			}
			var st struct {
				Charts []struct {
					Title  string `json:"title"`
					Series []struct {
						Y []float64 `json:"y"`
					} `json:"series"`
				} `json:"charts"`
			}
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &st); err != nil || len(st.Charts) != 2 || st.Charts[0].Title != "Speed trace" || len(st.Charts[0].Series[2].Y) != 400 {
				t.Errorf("structuredContent.charts: %v %.300s", err, b)
			}
		})
	}
}

// TestChartNoRenderer: without Options.ChartRenderer, a client without
// MCP Apps gets no image, the specs in structuredContent.charts and a line
// per chart that tells the model the user did not see it.
func TestChartNoRenderer(t *testing.T) {
	ts := startServer(t, func(o *codemode.Options) { o.Sandbox.Mode = sandbox.ModeInProcess })
	cs := ts.connect(t, ts.token("alice", allScopes...), nil)
	res := run(t, cs, speedTrace)
	if res.IsError {
		t.Fatalf("error: %s", text(res))
	}
	for _, c := range res.Content {
		if _, ok := c.(*mcp.ImageContent); ok {
			t.Error("an image without a renderer")
		}
	}
	txt := text(res)
	for _, want := range []string{
		`Chart 1: "Speed trace": line chart, 3 series, 1200 points, not shown to the user: their client does not display charts and this server draws no images.`,
		`Chart 2: "Brake points": mixed chart, 2 series, 6 points, not shown to the user`,
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
	var st struct {
		Charts []struct {
			Title string `json:"title"`
		} `json:"charts"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &st); err != nil || len(st.Charts) != 2 || st.Charts[1].Title != "Brake points" {
		t.Errorf("structuredContent.charts: %v %.300s", err, b)
	}
}

// appsClient connects declaring the MCP Apps extension.
func appsClient(t *testing.T, ts *testServer) *mcp.ClientSession {
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension("io.modelcontextprotocol/ui", map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}})
	return ts.connect(t, ts.token("alice", allScopes...), &mcp.ClientOptions{Capabilities: caps})
}

func TestChartAppsView(t *testing.T) {
	ts := startServer(t, nil)
	cs := appsClient(t, ts)
	tl, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ui, _ := tl.Tools[0].Meta["ui"].(map[string]any)
	if ui["resourceUri"] != codemode.ChartViewURI || tl.Tools[0].Meta["ui/resourceUri"] != codemode.ChartViewURI {
		t.Fatalf("tool _meta %v, want ui.resourceUri %s", tl.Tools[0].Meta, codemode.ChartViewURI)
	}
	res := run(t, cs, speedTrace)
	if res.IsError {
		t.Fatalf("error: %s", text(res))
	}
	for _, c := range res.Content {
		if _, ok := c.(*mcp.ImageContent); ok {
			t.Error("an MCP Apps client got an image: the view draws the charts")
		}
	}
	if !strings.Contains(text(res), `"Speed trace": line chart, 3 series, 1200 points, shown to the user.`) {
		t.Errorf("text: %s", text(res))
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: codemode.ChartViewURI})
	if err != nil || len(rr.Contents) != 1 {
		t.Fatalf("read the view: %v", err)
	}
	c := rr.Contents[0]
	if c.MIMEType != "text/html;profile=mcp-app" || !strings.HasPrefix(c.Text, "<!doctype html>") {
		t.Errorf("view: %s %.40q", c.MIMEType, c.Text)
	}
	csp, _ := c.Meta["ui"].(map[string]any)["csp"].(map[string]any)
	if cd, ok := csp["connectDomains"].([]any); !ok || len(cd) != 0 {
		t.Errorf("view CSP %v: want no connectDomains", c.Meta)
	}
}

func TestChartBadSpecs(t *testing.T) {
	ts := startServer(t, func(o *codemode.Options) { o.Limits = sandbox.Limits{Timeout: 5 * time.Second} })
	cs := ts.connect(t, ts.token("alice", allScopes...), nil)
	for _, tt := range []struct {
		name, spec string
		path, msg  string
	}{
		{"too many points", `{ series: [{ name: "a", x: Array.from({length: 10001}, (_, i) => i), y: Array.from({length: 10001}, (_, i) => i) }] }`, "series[0].x", "at most 10000"},
		{"points in all", `{ series: Array.from({length: 3}, (_, s) => ({ name: "s" + s, x: Array.from({length: 4000}, (_, i) => i), y: Array.from({length: 4000}, () => 1) })) }`, "series", "over the limit of 10000"},
		{"NaN", `{ series: [{ name: "a", x: [1, 2], y: [1, NaN] }] }`, "series[0].y[1]", "number"},
		{"Infinity", `{ series: [{ name: "a", x: [1, Infinity], y: [1, 2] }] }`, "series[0].x[1]", "number"},
		{"huge label", `{ title: "x".repeat(5000), series: [{ name: "a", y: [1], x: [1] }] }`, "title", "at most 80"},
		{"huge category", `{ x: { categories: ["y".repeat(100)] }, series: [{ name: "a", y: [1] }] }`, "x.categories[0]", "at most 80"},
		{"deep nesting", `{ series: [{ name: "a", x: [1], y: [[[[[[1]]]]]] }] }`, "series[0].y[0]", "number"},
		{"unknown kind", `{ series: [{ name: "a", kind: "pie", x: [1], y: [1] }] }`, "series[0].kind", "line"},
		{"unknown field", `{ series: [{ name: "a", x: [1], y: [1] }], theme: "dark" }`, "theme", "nknown"},
		{"too many series", `{ series: Array.from({length: 9}, (_, s) => ({ name: "s" + s, x: [1], y: [1] })) }`, "series", "at most 8"},
		{"x and y", `{ series: [{ name: "a", x: [1, 2, 3], y: [1] }] }`, "series[0].x", "one x per y"},
		{"categories", `{ x: { categories: ["a", "b"] }, series: [{ name: "a", y: [1] }] }`, "series[0].y", "one y per category"},
		{"y2 undeclared", `{ series: [{ name: "a", axis: "y2", x: [1], y: [1] }] }`, "series[0].axis", "y2"},
		{"no series", `{ title: "empty" }`, "series", "Required"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, cs, "await codemode.chart("+tt.spec+"); return 1;")
			s := structuredOf(t, res)
			if !res.IsError || s.Error == nil {
				t.Fatalf("no error: %s", text(res))
			}
			found := false
			for _, is := range s.Error.Issues {
				if strings.Contains(text(res), "- "+tt.path+": "+is.Message) && strings.Contains(is.Message, tt.msg) {
					found = true
				}
			}
			t.Logf("%s", text(res))
			if !found {
				t.Errorf("want an issue at %s saying %q:\n%s", tt.path, tt.msg, text(res))
			}
			for _, c := range res.Content {
				if _, ok := c.(*mcp.ImageContent); ok {
					t.Error("a refused chart was drawn")
				}
			}
		})
	}
}

func TestChartBounds(t *testing.T) {
	ts := startServer(t, func(o *codemode.Options) {
		o.Limits = sandbox.Limits{Timeout: 5 * time.Second, MaxOutputBytes: 20 << 10}
	})
	cs := ts.connect(t, ts.token("alice", allScopes...), nil)

	// Seven charts: the seventh is refused, the six are kept.
	res := run(t, cs, `const r = [];
for (let i = 0; i < 7; i++) {
  try { await codemode.chart({ title: "c" + i, series: [{ name: "a", x: [1, 2], y: [1, 2] }] }); } catch (e) { r.push(e.message) }
}
return r;`)
	if res.IsError || !strings.Contains(text(res), "the most one run may add") || strings.Count(text(res), "Chart ") != 6 {
		t.Errorf("seven charts:\n%s", text(res))
	}

	// A chart over the output limit is refused and says what to do.
	res = run(t, cs, `const x = Array.from({length: 3000}, (_, i) => i + 0.123456);
try { await codemode.chart({ series: [{ name: "a", x, y: x }] }); } catch (e) { return e.message }`)
	if !strings.Contains(text(res), "plot fewer points") || strings.Contains(text(res), "Chart 1") {
		t.Errorf("chart over the output limit:\n%s", text(res))
	}

	// Charts and the return value share the limit: the value comes first.
	res = run(t, cs, `const x = Array.from({length: 600}, (_, i) => i + 0.5);
await codemode.chart({ series: [{ name: "a", x, y: x }] });
return "v".repeat(15000);`)
	if strings.Contains(text(res), "Chart 1") || !strings.Contains(text(res), "left out") {
		t.Errorf("chart beside a big value:\n%.600s", text(res))
	}
	for _, c := range res.Content {
		if _, ok := c.(*mcp.ImageContent); ok {
			t.Error("the chart left out was drawn")
		}
	}
}
