package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/limitprobe"
)

func TestClientAddress(t *testing.T) {
	if clientAddress(nil) != nil {
		t.Fatal("no trusted proxy: want nil, so the SDK and sign-in server use the peer address")
	}
	_, lan, _ := net.ParseCIDR("10.0.0.0/8")
	_, v6, _ := net.ParseCIDR("2001:db8::/32")
	addr := clientAddress([]net.IPNet{*lan, *v6})
	tests := []struct {
		name, peer, xff, want string
	}{
		{"trusted proxy forwards", "10.0.0.5:4000", "198.51.100.7", "198.51.100.7"},
		{"a chain of trusted proxies", "10.0.0.5:4000", "198.51.100.7, 10.1.2.3", "198.51.100.7"},
		{"the client's own entries are not believed", "10.0.0.5:4000", "1.2.3.4, 198.51.100.7", "198.51.100.7"},
		{"IPv6 proxy", "[2001:db8::1]:4000", "2001:db8:ffff::9, 203.0.113.8", "203.0.113.8"},
		{"trusted proxy without the header", "10.0.0.5:4000", "", "10.0.0.5"},
		{"trusted proxy with garbage", "10.0.0.5:4000", "not-an-address", "10.0.0.5"},
		{"direct client forging the header", "203.0.113.9:5555", "198.51.100.7", "203.0.113.9"},
		{"direct client without the header", "203.0.113.9:5555", "", "203.0.113.9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tt.peer
			if tt.xff != "" {
				r.Header.Set("X-Forwarded-For", tt.xff)
			}
			if got := addr(r); got != tt.want {
				t.Errorf("client address = %q, want %q", got, tt.want)
			}
		})
	}
}

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
