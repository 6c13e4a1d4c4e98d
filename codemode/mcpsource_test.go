package codemode_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/mcpsource"
)

// A go-sdk tool called from a script gets a request derived from the
// execute_code request over HTTP: the same session, the bearer token's
// info and the request's headers, with params naming the tool.
func TestGoSDKToolGetsExecuteCodeRequest(t *testing.T) {
	cat, err := catalog.New("notes", nil)
	if err != nil {
		t.Fatal(err)
	}
	type in struct {
		ID string `json:"id"`
	}
	var (
		mu  sync.Mutex
		got *mcp.CallToolRequest
	)
	err = mcpsource.AddTool(cat, &mcp.Tool{Name: "get-note", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			got = req
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "note " + a.ID}}}, nil, nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServerFor(t, cat, nil)
	cs := ts.connect(t, ts.token("alice"), nil)
	res := run(t, cs, `return await notes.get_note({id: "n1"});`)
	if res.IsError || !strings.Contains(text(res), `"note n1"`) {
		t.Fatalf("result: %s", text(res))
	}
	mu.Lock()
	defer mu.Unlock()
	switch {
	case got == nil:
		t.Fatal("handler not called")
	case got.Session == nil:
		t.Error("derived request has no session")
	case got.Extra == nil || got.Extra.TokenInfo == nil || got.Extra.TokenInfo.UserID != "alice":
		t.Errorf("derived request's token info: %+v", got.Extra)
	case !strings.HasPrefix(got.Extra.Header.Get("Authorization"), "Bearer "):
		t.Errorf("derived request's headers: %v", got.Extra.Header)
	case got.Params.Name != "get-note" || string(got.Params.Arguments) != `{"id":"n1"}`:
		t.Errorf("derived params: %s %s", got.Params.Name, got.Params.Arguments)
	}
	if got.Session != nil && got.Session.ID() != cs.ID() {
		t.Errorf("derived session %q, execute_code's %q", got.Session.ID(), cs.ID())
	}
}
