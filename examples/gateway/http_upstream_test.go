package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
)

// An upstream over Streamable HTTP gets the configured headers (with
// ${VAR} from the environment), and a tool it adds later reaches the
// gateway's clients: the upstream's list_changed refreshes the catalog,
// and the gateway tells its own clients.
func TestHTTPUpstreamHeadersAndListChanged(t *testing.T) {
	t.Setenv("GW_TEST_KEY", "k-123")
	up := mcp.NewServer(&mcp.Implementation{Name: "laps", Version: "1"}, nil)
	type lapsOut struct {
		Laps int `json:"laps"`
	}
	mcp.AddTool(up, &mcp.Tool{Name: "count-laps", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, lapsOut, error) {
		return nil, lapsOut{Laps: 12}, nil
	})
	var badKey atomic.Int32
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "k-123" {
			badKey.Add(1)
			http.Error(w, "bad key", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)

	config := writeConfig(t, map[string]any{
		"lap-timer": map[string]any{"type": "http", "url": hs.URL, "headers": map[string]string{"X-Api-Key": "${GW_TEST_KEY}"}},
	})
	changed := make(chan struct{}, 10)
	cs := connect(t, config, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})

	if got := string(call(t, cs, `return (await lap_timer.count_laps({})).laps`)); got != "12" {
		t.Fatalf("count_laps: %s", got)
	}
	if n := badKey.Load(); n != 0 {
		t.Fatalf("%d upstream requests without the configured key", n)
	}

	mcp.AddTool(up, &mcp.Tool{Name: "best_lap", Description: "The best lap time in ms.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "91800"}}}, nil, nil
	})
	select {
	case <-changed:
	case <-time.After(20 * time.Second):
		t.Fatal("the gateway's client was not told the tools changed")
	}
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tools.Tools[0].Description, "best_lap") {
		t.Fatalf("description after the upstream added a tool:\n%s", tools.Tools[0].Description)
	}
	if got := string(call(t, cs, `return await lap_timer.best_lap({})`)); got != `"91800"` {
		t.Fatalf("best_lap: %s", got)
	}
}

// A tool that does not say whether it is destructive asks the user before
// every call, as the MCP specification's defaults have it, unless the
// server's entry trusts such tools with "unannotated": the same upstream
// under a second key set to "creative" runs it without asking. A tool
// annotated destructiveHint false never asks.
func TestUnannotatedToolsAskUnlessTrusted(t *testing.T) {
	up := mcp.NewServer(&mcp.Implementation{Name: "pits", Version: "1"}, nil)
	var cleared, booked atomic.Int32
	mcp.AddTool(up, &mcp.Tool{Name: "clear-pit-log"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		cleared.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "cleared"}}}, nil, nil
	})
	mcp.AddTool(up, &mcp.Tool{Name: "book-pit-slot", Annotations: &mcp.ToolAnnotations{DestructiveHint: new(bool)}}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		booked.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "booked"}}}, nil, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return up }, nil))
	t.Cleanup(hs.Close)

	config := writeConfig(t, map[string]any{
		"pits":         map[string]any{"url": hs.URL},
		"trusted-pits": map[string]any{"url": hs.URL, "unannotated": "creative"},
	})
	user := &mcptest.Asker{Action: "decline"}
	cs := connect(t, config, user.Options())

	out, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `await pits.clear_pit_log({}); return "cleared"`}})
	if err != nil {
		t.Fatal(err)
	}
	if !out.IsError || !strings.Contains(textOf(out), "APPROVAL_DECLINED") {
		t.Fatalf("unannotated tool, declined: %s", textOf(out))
	}
	if asked := user.Asked(); len(asked) != 1 || !strings.Contains(asked[0], "pits.clear_pit_log (MUTATING)") || cleared.Load() != 0 {
		t.Fatalf("asked %q; the tool ran %d times", asked, cleared.Load())
	}
	if got := string(call(t, cs, `return [await pits.book_pit_slot({}), await trusted_pits.clear_pit_log({})]`)); got != `["booked","cleared"]` {
		t.Fatalf("annotated and trusted tools: %s", got)
	}
	if asked := user.Asked(); len(asked) != 1 || cleared.Load() != 1 || booked.Load() != 1 {
		t.Fatalf("asked %q; cleared %d, booked %d times", asked, cleared.Load(), booked.Load())
	}
}
