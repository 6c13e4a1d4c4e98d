package functions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/evanw/esbuild/pkg/api"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/testtool"
	"github.com/brakinglab/codemode-go/internal/tsclienttest"
)

// hostScript is the test's MCP Apps host: the ext-apps AppBridge from npm
// on a PostMessageTransport to the view's iframe. Once the view has
// initialised, it sends the tool input and the tool result.
const hostScript = `
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
const iframe = document.createElement("iframe");
iframe.id = "view";
iframe.setAttribute("sandbox", "allow-scripts allow-same-origin");
iframe.style.width = "980px";
iframe.style.height = "1000px";
document.body.append(iframe);
const bridge = new AppBridge(null, { name: "test-host", version: "1.0.0" }, { openLinks: {} });
bridge.oninitialized = async () => {
  window.viewInitialized = true;
  await bridge.sendToolInput({ arguments: window.TOOL_INPUT });
  await bridge.sendToolResult(window.TOOL_RESULT);
};
await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
iframe.src = "/view.html";
`

// bundleHost bundles hostScript with ext-apps from .ci/js.
func bundleHost(t *testing.T) string {
	t.Helper()
	tsclienttest.Need(t, "@modelcontextprotocol/ext-apps")
	nm := tsclienttest.Modules()
	res := api.Build(api.BuildOptions{
		Stdin:     &api.StdinOptions{Contents: hostScript, ResolveDir: nm, Loader: api.LoaderJS},
		Bundle:    true,
		Format:    api.FormatESModule,
		Target:    api.ES2022,
		NodePaths: []string{nm},
		LogLevel:  api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		t.Fatalf("bundling the host: %v", res.Errors)
	}
	return string(res.OutputFiles[0].Contents)
}

// viewCSP is the Content-Security-Policy a host gives a view whose
// _meta.ui.csp lists no domain: inline code only, no connection.
func viewCSP(t *testing.T, meta mcp.Meta) string {
	t.Helper()
	ui, _ := meta["ui"].(map[string]any)
	csp, _ := ui["csp"].(map[string]any)
	if csp == nil {
		t.Fatalf("the view declares no CSP: %v", meta)
	}
	for _, k := range []string{"connectDomains", "resourceDomains"} {
		if d, _ := csp[k].([]any); len(d) != 0 {
			t.Fatalf("the view asks for %s %v", k, d)
		}
	}
	return "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
}

// TestChartViewInChromium renders the charts of a BrakingLab result in
// the MCP Apps view, inside a host page driven by the ext-apps AppBridge,
// in real Chromium: every series and axis title is drawn, and the view
// makes no network request.
func TestChartViewInChromium(t *testing.T) {
	testtool.Need(t, testtool.ChromiumPath, "chromium")
	host := bundleHost(t)

	caps := &mcp.ClientCapabilities{}
	caps.AddExtension("io.modelcontextprotocol/ui", map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}})
	cs := chartClient(t, caps)
	// Two charts in one result: the speed trace, then braking consistency.
	code := strings.Replace(coachingCharts["speed-trace"], "return [a.lapTimeMs, b.lapTimeMs];", `
const z = await brakinglab.getBrakingZones({ sessionId: s.id });
await codemode.chart({ title: "Braking consistency", x: { title: "Corner", categories: z.map(c => c.cornerName) },
  y: { title: "Brake point spread", unit: "m" }, y2: { title: "Consistency", unit: "%" },
  series: [{ name: "spread", kind: "bar", y: z.map(c => c.brakePointSpreadM) },
           { name: "consistency", kind: "scatter", axis: "y2", y: z.map(c => c.consistencyPct) }] });
return "two charts";`, 1)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": code}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	var st struct {
		Charts []struct {
			Series      []json.RawMessage `json:"series"`
			Annotations []json.RawMessage `json:"annotations"`
			X           struct {
				Categories []string `json:"categories"`
			} `json:"x"`
		} `json:"charts"`
	}
	resJSON, _ := json.Marshal(res)
	scJSON, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(scJSON, &st); err != nil || len(st.Charts) != 2 {
		t.Fatalf("charts: %v %.300s", err, scJSON)
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: codemode.ChartViewURI})
	if err != nil {
		t.Fatal(err)
	}
	view := rr.Contents[0]
	csp := viewCSP(t, view.Meta)
	input, _ := json.Marshal(map[string]string{"code": code})

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/host.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<!doctype html><html><body><script>window.TOOL_INPUT = %s; window.TOOL_RESULT = %s;</script><script type=\"module\">%s</script></body></html>",
				input, resJSON, strings.ReplaceAll(host, "</script", `<\/script`))
		case "/view.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Security-Policy", csp)
			fmt.Fprint(w, view.Text)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	ctx, cancelT := context.WithTimeout(testtool.Chromium(t, context.Background(), 1000, 1100), 60*time.Second)
	defer cancelT()
	var mu sync.Mutex
	var requests, problems []string
	err = chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			requests = append(requests, e.Request.URL)
		case *runtime.EventExceptionThrown:
			msg := e.ExceptionDetails.Text
			if ex := e.ExceptionDetails.Exception; ex != nil {
				msg += " " + ex.Description
			}
			problems = append(problems, msg)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				problems = append(problems, strings.Join(args, " "))
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/host.html"))
	if err == nil {
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`(() => { const d = document.getElementById("view")?.contentDocument; return !!(d && d.body && d.body.dataset.charts === "2"); })()`, chromedp.WithPollingTimeout(30*time.Second)))
	}
	mu.Lock()
	probs := strings.Join(problems, "\n")
	mu.Unlock()
	if err != nil {
		t.Fatalf("the view did not draw two charts: %v\nconsole:\n%s", err, probs)
	}
	type drawnChart struct {
		Series []struct {
			Kind     string
			Name     string
			Elements int
		}
		AxisTitles  []string
		Annotations int
		Categories  []string
	}
	drawn, err := chromedp.Run(ctx, chromedp.Evaluate[[]drawnChart](`[...document.getElementById("view").contentDocument.querySelectorAll("svg.chart")].map(svg => ({
  series: [...svg.querySelectorAll("g.series")].map(g => ({ kind: g.getAttribute("class").split(" ")[1], name: g.dataset.name, elements: g.querySelectorAll("path,circle,rect").length })),
  axisTitles: [...svg.querySelectorAll(".axis-title")].map(e => e.textContent),
  annotations: svg.querySelectorAll("g.annotation").length,
  categories: [...svg.querySelectorAll(".tick.x")].map(e => e.textContent),
}))`))
	if err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("CHART_DIR"); dir != "" {
		if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			_ = os.WriteFile(filepath.Join(dir, "view.png"), png, 0o644)
		}
	}
	if len(drawn) != 2 {
		t.Fatalf("%d charts drawn, want 2", len(drawn))
	}
	trace, braking := drawn[0], drawn[1]
	if len(trace.Series) != 2 || trace.Series[0].Kind != "line" || trace.Series[0].Elements != 1 || trace.Series[1].Elements != 1 {
		t.Errorf("speed trace series: %+v", trace.Series)
	}
	if want := []string{"Distance (m)", "Speed (km/h)"}; strings.Join(trace.AxisTitles, "|") != strings.Join(want, "|") {
		t.Errorf("speed trace axis titles %q, want %q", trace.AxisTitles, want)
	}
	if trace.Annotations != len(st.Charts[0].Annotations) || trace.Annotations < 10 {
		t.Errorf("%d corner annotations drawn, want %d", trace.Annotations, len(st.Charts[0].Annotations))
	}
	corners := len(st.Charts[1].X.Categories)
	if len(braking.Series) != 2 || braking.Series[0].Kind != "bar" || braking.Series[0].Elements != corners || braking.Series[1].Kind != "scatter" || braking.Series[1].Elements != corners {
		t.Errorf("braking series %+v, want %d bars and %d markers", braking.Series, corners, corners)
	}
	if want := []string{"Corner", "Brake point spread (m)", "Consistency (%)"}; strings.Join(braking.AxisTitles, "|") != strings.Join(want, "|") {
		t.Errorf("braking axis titles %q, want %q", braking.AxisTitles, want)
	}
	if strings.Join(braking.Categories, "|") != strings.Join(st.Charts[1].X.Categories, "|") {
		t.Errorf("corner labels %q, want %q", braking.Categories, st.Charts[1].X.Categories)
	}

	// Only the host page and the view were fetched, from the test server.
	mu.Lock()
	defer mu.Unlock()
	for _, r := range requests {
		u, err := url.Parse(r)
		if err != nil || u.Host != strings.TrimPrefix(srv.URL, "http://") || (u.Path != "/host.html" && u.Path != "/view.html" && u.Path != "/favicon.ico") {
			t.Errorf("unexpected request %s", r)
		}
	}
	if len(problems) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(problems, "\n"))
	}
}
