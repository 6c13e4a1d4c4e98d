package chartview

import (
	"context"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Extension is the MCP Apps extension a client declares in its
// capabilities to have the charts of a result drawn in the view.
const Extension = "io.modelcontextprotocol/ui"

// URI is the resource of the view (codemode.ChartViewURI).
const URI = "ui://codemode/charts.html"

// MIME is the MIME type of an MCP Apps view.
const MIME = "text/html;profile=mcp-app"

// Client reports whether the client declared the MCP Apps extension: in
// the request's _meta (protocol 2026-07-28), else at initialize. A client
// of an older protocol on a stateless endpoint cannot be known to have
// it, so it gets images.
func Client(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[Extension]
	return ok
}

// meta is the view's _meta.ui: a CSP that allows no origin, so the view
// reaches no network.
var meta = mcp.Meta{"ui": map[string]any{
	"csp":           map[string]any{"connectDomains": []string{}, "resourceDomains": []string{}},
	"prefersBorder": true,
}}

// Serve adds the view to srv as the resource URI, described by
// description.
func Serve(srv *mcp.Server, description string) {
	srv.AddResource(&mcp.Resource{
		URI:         URI,
		Name:        "charts.html",
		Title:       "Charts",
		Description: description,
		MIMEType:    MIME,
		Size:        int64(len(HTML)),
		Meta:        meta,
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: URI, MIMEType: MIME, Text: HTML, Meta: meta}}}, nil
	})
}

// ToolMeta returns the middleware that gives the tools named in the
// tools/list of a client that declared the MCP Apps extension, and only
// there, _meta.ui.resourceUri pointing at the view: other clients get
// the charts as images.
func ToolMeta(tools ...string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			lt, ok := res.(*mcp.ListToolsResult)
			if err != nil || !ok || method != "tools/list" {
				return res, err
			}
			if lr, _ := req.(*mcp.ListToolsRequest); lr == nil || !Client(lr.ClientCapabilities()) {
				return res, err
			}
			out := *lt
			out.Tools = make([]*mcp.Tool, len(lt.Tools))
			for i, t := range lt.Tools {
				if slices.Contains(tools, t.Name) {
					c := *t
					c.Meta = mcp.Meta{}
					maps.Copy(c.Meta, t.Meta)
					c.Meta["ui"] = map[string]any{"resourceUri": URI}
					c.Meta["ui/resourceUri"] = URI // the key older hosts read
					t = &c
				}
				out.Tools[i] = t
			}
			return &out, nil
		}
	}
}
