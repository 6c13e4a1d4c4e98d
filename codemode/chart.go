package codemode

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/internal/chartrun"
	"github.com/brakinglab/codemode-go/internal/chartview"
)

// MaxCharts is how many charts one execution may add with codemode.chart.
const MaxCharts = chartrun.Max

// ChartViewURI is the MCP Apps view that draws the charts of a result.
const ChartViewURI = chartview.URI

// appsExtension is the MCP Apps extension a client declares in its
// capabilities to have execute_code's charts shown in the view.
const appsExtension = chartview.Extension

// appsClient reports whether the client declared the MCP Apps extension.
var appsClient = chartview.Client

// appsMeta points the code tools at the view in the tools/list of a
// client that declared the MCP Apps extension.
var appsMeta = chartview.ToolMeta(ToolName, ReadOnlyToolName)

// addChartView serves the charts view on srv.
func addChartView(srv *mcp.Server) {
	chartview.Serve(srv, "The MCP Apps view that draws the charts of an "+ToolName+" result.")
}

// withCharts adds an execution's charts to its result:
// structuredContent.charts for the view, a line per chart in the text for
// the model and, for a client without the Apps extension, each chart as a
// PNG when the server has a renderer (Options.ChartRenderer). Charts that
// no longer fit the output limit next to the value and logs are left out,
// with a warning: the value comes first.
//
// The renderings of one execution share its drawing budget and wait for
// the process's render slots as the execution's principal (see
// chartrun.Show).
func (s *Server) withCharts(ctx context.Context, res *mcp.CallToolResult, st *structured, used int, host *execHost) {
	who := ""
	if host.principal != nil {
		who = host.principal.Subject
	}
	shown := host.charts.Show(ctx, chartrun.Show{Used: used, Max: s.sb.Limits().MaxOutputBytes, Apps: host.apps, Renderer: s.opts.ChartRenderer, Principal: who, Logger: s.logger})
	if len(shown.Lines) == 0 {
		return
	}
	st.Charts = append(st.Charts, shown.Charts...)
	for _, w := range shown.Warnings {
		st.Warnings = append(st.Warnings, warning{Kind: "CHART", Message: w})
	}
	for _, png := range shown.Images {
		res.Content = append(res.Content, &mcp.ImageContent{MIMEType: "image/png", Data: png})
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		tc.Text = strings.Join(shown.Lines, "\n") + "\n\n" + tc.Text
	}
}
