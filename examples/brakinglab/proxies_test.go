package main

import (
	"path/filepath"
	"testing"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/limitprobe"
)

// TestTrustedProxiesFailureLimit serves BrakingLab's handler and floods it
// with bad tokens from one client behind a proxy: with the proxy trusted,
// that client is blocked and another behind the same proxy is not; with
// the peer not among the trusted proxies, X-Forwarded-For is ignored and
// the two share the peer's budget.
func TestTrustedProxiesFailureLimit(t *testing.T) {
	for _, tt := range []struct {
		proxies   string
		separated bool
	}{
		{"127.0.0.1", true},
		{"10.9.9.9", false}, // the test's requests come from 127.0.0.1
	} {
		t.Run(tt.proxies, func(t *testing.T) {
			srv := serveWired(t, "127.0.0.1:41235", []string{"-db", filepath.Join(t.TempDir(), "lab.db"), "-no-demo", "-trusted-proxies", tt.proxies}, nil)
			mcpURL := srv.URL + "/mcp"
			// The default budget is bursts of 100 refilled at 20 per
			// second: 290 bad tokens in a row leave mallory blocked.
			limitprobe.RefusedBadTokens(t, mcpURL, "198.51.100.66", 290)
			if k := limitprobe.RefusedBadTokens(t, mcpURL, "198.51.100.66", 10); k < 8 {
				t.Fatalf("mallory after 290 bad tokens: %d of 10 more refused with 429, want at least 8", k)
			}
			k := limitprobe.RefusedBadTokens(t, mcpURL, "198.51.100.7", 5)
			switch {
			case tt.separated && k != 0:
				t.Errorf("another client behind the trusted proxy: %d of 5 bad tokens refused with 429, want 0 (401 each)", k)
			case !tt.separated && k < 4:
				t.Errorf("another client behind an untrusted peer: %d of 5 refused with 429, want at least 4 (the peer's budget is spent)", k)
			}
		})
	}
}
