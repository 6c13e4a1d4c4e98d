package codemode_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callBody is a raw tools/call of execute_code running code.
func callBody(code string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":` + jsonString(code) + `}}}`
}

// An ordinary scripted client (the official go-sdk client) that opens a
// session, lists the tools and runs one execution, forty times in a row,
// is never refused by the default limit: only executions count, and forty
// fit in the default burst. Counting every message (160 here) refused it.
func TestScriptedClientWithinDefaultLimit(t *testing.T) {
	ts := startServer(t, nil)
	token := ts.token("alice", allScopes...)
	for i := range 40 {
		cs := ts.connect(t, token, nil)
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Fatalf("session %d: tools/list: %v", i, err)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{"code": "return 1"}})
		if err != nil {
			t.Fatalf("session %d: tools/call: %v", i, err)
		}
		if res.IsError {
			t.Fatalf("session %d: %s", i, text(res))
		}
		cs.Close()
	}
}

// A flood of executions from one principal is refused with 429 and
// Retry-After under the default limit, while another principal, and the
// flooder's own set-up traffic, are still served.
func TestExecutionFloodRefused(t *testing.T) {
	ts := startServer(t, nil)
	alice, bob := ts.token("alice", allScopes...), ts.token("bob", allScopes...)
	refusedAt := 0
	for i := 1; i <= 400 && refusedAt == 0; i++ {
		resp := rawPost(t, ts.URL, callBody("return 1"), mcpHeaders(alice))
		switch resp.StatusCode {
		case http.StatusOK:
		case http.StatusTooManyRequests:
			if resp.Header.Get("Retry-After") == "" {
				t.Fatal("429 without Retry-After")
			}
			refusedAt = i
		default:
			t.Fatalf("execution %d: status %d", i, resp.StatusCode)
		}
		resp.Body.Close()
	}
	if refusedAt == 0 {
		t.Fatal("400 back-to-back executions were all accepted")
	}
	t.Logf("first refusal at execution %d", refusedAt)
	if resp := rawPost(t, ts.URL, listToolsBody, mcpHeaders(alice)); resp.StatusCode != http.StatusOK {
		t.Fatalf("alice's tools/list after her flood: %d", resp.StatusCode)
	}
	if resp := rawPost(t, ts.URL, callBody("return 1"), mcpHeaders(bob)); resp.StatusCode != http.StatusOK {
		t.Fatalf("bob's execution during alice's flood: %d", resp.StatusCode)
	}
}
