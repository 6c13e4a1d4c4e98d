package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/chart"
	"github.com/brakinglab/codemode-go/internal/chartview"
)

// MaxCharts is how many charts one execution may add with codemode.chart.
const MaxCharts = 6

// chartDeclaration declares codemode.chart for the model. It is written
// by hand, compact, because every character counts against the
// description's budget; TestChartDeclaration checks it against chart.Spec.
const chartDeclaration = `  /** Shows the user a chart. Categorical x: x.categories, one y each. */
  function chart(spec: { title?: string; x?: Ax & { categories?: string[] }; y?: Ax; y2?: Ax; series: { name: string; kind?: "line"|"scatter"|"bar"|"area"; axis?: "y"|"y2"; x?: number[]; y: number[] }[]; annotations?: { x: number; label: string }[] }): Promise<string>;
  type Ax = { title?: string; unit?: string };`

// chartCatalog decodes and validates chart specs exactly as host-call
// arguments are: the same decoder, validate tags and issues with paths.
var chartCatalog = func() *catalog.Catalog {
	c, err := catalog.New(DiscoveryNamespace, &catalog.Options{AllowAnonymous: true})
	if err != nil {
		panic(err)
	}
	catalog.MustAdd(c, catalog.Func[chart.Spec, string]{
		Name:        "chart",
		Description: "Adds a chart to the result.",
		// Mutating: a chart adds to the result, and a member the spec
		// does not know (a misspelt field) is refused, not ignored.
		Tier: catalog.Mutating,
		Validate: func(_ context.Context, s chart.Spec) error {
			issues := s.Check()
			if len(issues) == 0 {
				return nil
			}
			ve := &catalog.ValidationError{}
			for _, is := range issues {
				ve.Issues = append(ve.Issues, catalog.Issue{Path: is.Path, Message: is.Message})
			}
			return ve
		},
		Handler: func(ctx context.Context, s chart.Spec) (string, error) {
			cs, ok := ctx.Value(chartsKey{}).(*charts)
			if !ok {
				return "", catalog.Invalid("codemode.chart works only inside an execution")
			}
			return cs.add(s)
		},
	})
	return c
}()

type chartsKey struct{}

// charts collects the charts of one execution. Their JSON shares the
// output limit with the logs and the return value (see withCharts).
type charts struct {
	max   int // the output limit, in bytes
	mu    sync.Mutex
	list  []json.RawMessage
	specs []chart.Spec
	bytes int
}

func (cs *charts) add(s chart.Spec) (string, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.list) == MaxCharts {
		return "", catalog.Invalid("this run already has %d charts, the most one run may add: combine series into fewer charts", MaxCharts)
	}
	if cs.bytes+len(b) > cs.max {
		return "", catalog.Invalid("this chart's data is %d bytes and the run's charts may total %d (the output limit): plot fewer points (every n-th point, or one per corner or lap) or round the values", len(b), cs.max-cs.bytes)
	}
	cs.bytes += len(b)
	cs.list = append(cs.list, b)
	cs.specs = append(cs.specs, s)
	return fmt.Sprintf("chart %d added: %s", len(cs.list), s.Summary()), nil
}

// scriptChart runs codemode.chart(spec) for a script; args is the JSON
// array of its arguments.
func (h *execHost) scriptChart(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	var list []json.RawMessage
	if json.Unmarshal(args, &list) != nil || len(list) != 1 {
		return nil, catalog.Invalid(`codemode.chart takes one spec object, for example codemode.chart({ title: "Lap times", x: { title: "Lap" }, series: [{ name: "lap time", x: [1, 2, 3], y: [92.4, 91.8, 91.5] }] })`)
	}
	out, err := chartCatalog.Call(context.WithValue(ctx, chartsKey{}, h.charts), "chart", list[0])
	var ve *catalog.ValidationError
	if errors.As(err, &ve) {
		for i, is := range ve.Issues {
			// JSON has no NaN or Infinity: the script's value arrived as null.
			if strings.HasSuffix(is.Message, "got null") {
				ve.Issues[i].Message += ": NaN and Infinity arrive as null, so leave such points out or replace them"
			}
		}
	}
	return out, err
}

// taken returns the charts of the execution.
func (cs *charts) taken() ([]json.RawMessage, []chart.Spec) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.list, cs.specs
}

// appsExtension is the MCP Apps extension a client declares in its
// capabilities to have execute_code's charts shown in the view.
const appsExtension = "io.modelcontextprotocol/ui"

// ChartViewURI is the MCP Apps view that draws the charts of a result.
const ChartViewURI = "ui://codemode/charts.html"

// appsClient reports whether the client declared the MCP Apps extension:
// in the request's _meta (protocol 2026-07-28), else at initialize. A
// client of an older protocol on a stateless endpoint cannot be known to
// have it, so it gets images.
func appsClient(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[appsExtension]
	return ok
}

// renderSlots bounds how many charts are drawn at once in the process:
// rendering runs in the host after the worker is free, so without it the
// number of concurrent requests alone would bound its CPU and memory (about
// 15 ms and 2 MB a chart).
var renderSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// withCharts adds an execution's charts to its result:
// structuredContent.charts for the view, a line per chart in the text for
// the model and, for a client without the Apps extension, each chart as a
// PNG when the server has a renderer (Options.ChartRenderer). Charts that no longer fit the output limit next to the value and
// logs are left out, with a warning: the value comes first.
func (s *Server) withCharts(res *mcp.CallToolResult, st *structured, used int, cs *charts, apps bool) {
	list, specs := cs.taken()
	if len(list) == 0 {
		return
	}
	max := s.sb.Limits().MaxOutputBytes
	var lines []string
	for i, b := range list {
		if used+len(b) > max {
			msg := fmt.Sprintf("Charts %d to %d were left out: with the logs and the return value they exceed the %d-byte output limit; return less or plot fewer points.", i+1, len(list), max)
			st.Warnings = append(st.Warnings, warning{Kind: "CHART", Message: msg})
			lines = append(lines, msg)
			break
		}
		used += len(b)
		st.Charts = append(st.Charts, b)
		line := fmt.Sprintf("Chart %d: %s", i+1, specs[i].Summary())
		if apps {
			lines = append(lines, line+", shown to the user.")
			continue
		}
		if s.opts.ChartRenderer == nil {
			lines = append(lines, line+", not shown to the user: their client does not display charts and this server draws no images.")
			continue
		}
		renderSlots <- struct{}{}
		png, err := s.opts.ChartRenderer.RenderPNG(&specs[i])
		<-renderSlots
		if err != nil {
			s.logger.Error("codemode: chart rendering", "err", err)
			lines = append(lines, line+", could not be drawn.")
			continue
		}
		lines = append(lines, line+", shown to the user as an image.")
		res.Content = append(res.Content, &mcp.ImageContent{MIMEType: "image/png", Data: png})
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		tc.Text = strings.Join(lines, "\n") + "\n\n" + tc.Text
	}
}

// chartViewMeta is the view's _meta.ui: a CSP that allows no origin, so
// the view reaches no network.
var chartViewMeta = mcp.Meta{"ui": map[string]any{
	"csp":           map[string]any{"connectDomains": []string{}, "resourceDomains": []string{}},
	"prefersBorder": true,
}}

// addChartView serves the charts view on srv.
func addChartView(srv *mcp.Server) {
	srv.AddResource(&mcp.Resource{
		URI:         ChartViewURI,
		Name:        "charts.html",
		Title:       "Charts",
		Description: "The MCP Apps view that draws the charts of an " + ToolName + " result.",
		MIMEType:    appsMIME,
		Size:        int64(len(chartview.HTML)),
		Meta:        chartViewMeta,
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: ChartViewURI, MIMEType: appsMIME, Text: chartview.HTML, Meta: chartViewMeta}}}, nil
	})
}

// appsMIME is the MIME type of an MCP Apps view.
const appsMIME = "text/html;profile=mcp-app"

// appsMeta gives the code tools _meta.ui.resourceUri in the tools/list of
// a client that declared the MCP Apps extension, and only there: other
// clients get the charts as images.
func appsMeta(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		lt, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok || method != "tools/list" {
			return res, err
		}
		if lr, _ := req.(*mcp.ListToolsRequest); lr == nil || !appsClient(lr.ClientCapabilities()) {
			return res, err
		}
		out := *lt
		out.Tools = make([]*mcp.Tool, len(lt.Tools))
		for i, t := range lt.Tools {
			if t.Name == ToolName || t.Name == ReadOnlyToolName {
				c := *t
				c.Meta = mcp.Meta{}
				maps.Copy(c.Meta, t.Meta)
				c.Meta["ui"] = map[string]any{"resourceUri": ChartViewURI}
				c.Meta["ui/resourceUri"] = ChartViewURI // the key older hosts read
				t = &c
			}
			out.Tools[i] = t
		}
		return &out, nil
	}
}
