package chartview

import (
	"context"

	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The view is served with its CSP, and only a client declaring the MCP
// Apps extension sees the named tools point at it.
func TestApps(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	Serve(srv, "the charts")
	srv.AddReceivingMiddleware(ToolMeta("run"))
	schema := map[string]any{"type": "object"}
	for _, name := range []string{"run", "other"} {
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	}
	for _, apps := range []bool{false, true} {
		caps := &mcp.ClientCapabilities{}
		if apps {
			caps.Extensions = map[string]any{Extension: map[string]any{}}
		}
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).Connect(t.Context(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		lt, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range lt.Tools {
			ui, _ := tool.Meta["ui"].(map[string]any)
			if pointed := ui["resourceUri"] == URI; pointed != (apps && tool.Name == "run") {
				t.Errorf("apps %v, tool %s: _meta %v", apps, tool.Name, tool.Meta)
			}
		}
		res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: URI})
		if err != nil || res.Contents[0].MIMEType != MIME || res.Contents[0].Text != HTML || res.Contents[0].Meta["ui"] == nil {
			t.Fatalf("the view: %v", err)
		}
	}
	if Client(nil) {
		t.Error("a request without capabilities declared the extension")
	}
}
