// Package limitprobe drives BrakingLab's per-client limits from tests: it
// posts requests that fail authentication as a client behind a proxy and
// counts how many the failed-authentication limit refused.
package limitprobe

import (
	"net/http"
	"strings"
	"testing"
)

// RefusedBadTokens posts n tools/list requests to mcpURL with an invalid
// bearer token and X-Forwarded-For set to client, one after the other,
// and returns how many were refused with 429 Too Many Requests. Counting
// refusals out of several requests keeps a token refilled between two of
// them from deciding a test's outcome.
func RefusedBadTokens(tb testing.TB, mcpURL, client string, n int) int {
	tb.Helper()
	refused := 0
	for range n {
		req, err := http.NewRequest(http.MethodPost, mcpURL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if err != nil {
			tb.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer not-a-token")
		req.Header.Set("X-Forwarded-For", client)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			refused++
		}
	}
	return refused
}
