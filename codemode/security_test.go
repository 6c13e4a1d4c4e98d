package codemode_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/codemode"
)

// TestBatchCountsAgainstRateLimit: a JSON-RPC batch (accepted by go-sdk for
// protocol 2025-03-26, the revision assumed when the header is absent) holds
// many requests in one POST. Each must cost one token of the principal's
// rate limit, or one POST could start hundreds of executions.
func TestBatchCountsAgainstRateLimit(t *testing.T) {
	ts := startServer(t, func(o *codemode.Options) { o.RatePerSecond, o.RateBurst = 0.001, 3 })
	tok := ts.token("alice", allScopes...)
	var calls []string
	for i := range 10 {
		calls = append(calls, sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":"return (await brakinglab.getSessions({limit: 1})).length"}}}`, i+1))
	}
	batch := "[" + strings.Join(calls, ",") + "]"
	resp := rawPost(t, ts.URL, batch, mcpHeaders(tok))
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		n := strings.Count(string(body), `"structuredContent"`)
		t.Fatalf("a batch of 10 calls under a burst of 3 was served (%d results): %.300s", n, body)
	}
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status %d, want 429 or 400: %s", resp.StatusCode, body)
	}
	// A single request still works, and the refused batch did not spend the budget.
	if resp := rawPost(t, ts.URL, listToolsBody, mcpHeaders(tok)); resp.StatusCode != http.StatusOK {
		t.Fatalf("single request after the refused batch: %d", resp.StatusCode)
	}
}
