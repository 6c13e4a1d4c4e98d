package e2e

import (
	"testing"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/limitprobe"
)

// TestFailedTokensBehindNginx: two replicas behind nginx, which appends
// the address it saw to X-Forwarded-For, and which the replicas trust
// (-trusted-proxies 127.0.0.1). One client floods them with bad tokens
// and is refused with 429; another client behind the same nginx still
// reaches the token check (401), where before both shared nginx's
// address and its budget.
func TestFailedTokensBehindNginx(t *testing.T) {
	rs := startReplicas(t, 2)
	// nginx sees the test's own 127.0.0.1, a trusted address, and appends
	// it; the right-most entry that is not trusted is then the one the
	// test writes, standing in for the address an edge proxy would have
	// appended. (At the edge, nginx appends the client's public address
	// after whatever the client wrote, and that one counts.) The replicas
	// share one budget per client (bursts of 100, 20 per second) in
	// PostgreSQL.
	limitprobe.RefusedBadTokens(t, rs.front.MCPURL, "198.51.100.66", 290)
	if k := limitprobe.RefusedBadTokens(t, rs.front.MCPURL, "198.51.100.66", 10); k < 8 {
		t.Fatalf("mallory after 290 bad tokens: %d of 10 more refused with 429, want at least 8", k)
	}
	if k := limitprobe.RefusedBadTokens(t, rs.front.MCPURL, "198.51.100.7", 5); k != 0 {
		t.Errorf("another client behind the same nginx: %d of 5 bad tokens refused with 429, want none (401 each)", k)
	}
}
