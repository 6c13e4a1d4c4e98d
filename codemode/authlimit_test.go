package codemode_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// countingServer starts a server whose verifier counts its calls.
func countingServer(t *testing.T, perSecond float64, burst int) (*testServer, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	ts := startServer(t, func(o *codemode.Options) {
		v := o.Auth.Verifier
		o.Auth.Verifier = bearer.VerifierFunc(func(ctx context.Context, tok string) (*bearer.Token, error) {
			calls.Add(1)
			return v.Verify(ctx, tok)
		})
		o.RateLimits.AuthFailuresPerSecond = perSecond
		o.RateLimits.AuthFailureBurst = burst
	})
	return ts, &calls
}

func TestAuthFailureLimit(t *testing.T) {
	// A refill of one token per thousand seconds keeps the test clock-free.
	ts, calls := countingServer(t, 0.001, 5)
	good := ts.token("alice")

	// Successful requests cost nothing: more than the burst all pass.
	for i := range 8 {
		resp := rawPost(t, ts.URL, initializeBody, map[string]string{"Authorization": "Bearer " + good})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("good request %d: status %d", i, resp.StatusCode)
		}
	}
	calls.Store(0)

	// A flood of bad or missing tokens reaches the verifier only for the burst.
	for i := range 30 {
		h := map[string]string{"Authorization": "Bearer not-a-token"}
		if i%3 == 0 {
			h = nil
		}
		resp := rawPost(t, ts.URL, initializeBody, h)
		switch {
		case i < 5 && resp.StatusCode != http.StatusUnauthorized:
			t.Fatalf("bad request %d: status %d, want 401", i, resp.StatusCode)
		case i >= 5 && resp.StatusCode != http.StatusTooManyRequests:
			t.Fatalf("bad request %d: status %d, want 429", i, resp.StatusCode)
		case i >= 5 && resp.Header.Get("Retry-After") == "":
			t.Fatalf("bad request %d: 429 without Retry-After", i)
		}
	}
	// Requests without a token never call the verifier: 3 of the first 5 had one.
	if got := calls.Load(); got != 3 {
		t.Errorf("verifier calls during the flood = %d, want 3", got)
	}

	// The address is blocked now, even with a good token, and the
	// verifier is not asked.
	resp := rawPost(t, ts.URL, initializeBody, map[string]string{"Authorization": "Bearer " + good})
	if resp.StatusCode != http.StatusTooManyRequests || calls.Load() != 3 {
		t.Errorf("good token from a blocked address: status %d, verifier calls %d; want 429, 3", resp.StatusCode, calls.Load())
	}
}

func TestAuthFailureLimitOff(t *testing.T) {
	ts, calls := countingServer(t, -1, 0)
	for i := range 150 {
		resp := rawPost(t, ts.URL, initializeBody, map[string]string{"Authorization": "Bearer not-a-token"})
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("request %d: status %d, want 401 with the limit off", i, resp.StatusCode)
		}
	}
	if got := calls.Load(); got != 150 {
		t.Errorf("verifier calls = %d, want 150", got)
	}
}

// Behind a proxy every client has the proxy's peer address: with
// ClientAddress naming the client the proxy reports, one client's failed
// tokens block that client, not the others. Without it they share one
// budget, which is what the option is for.
func TestAuthFailureLimitPerClientAddress(t *testing.T) {
	for _, perClient := range []bool{true, false} {
		ts := startServer(t, func(o *codemode.Options) {
			o.RateLimits.AuthFailuresPerSecond, o.RateLimits.AuthFailureBurst = 0.001, 3
			if perClient {
				o.HTTP.ClientAddress = func(r *http.Request) string { return r.Header.Get("X-Test-Client") }
			}
		})
		bad := func(client string) int {
			resp := rawPost(t, ts.URL, initializeBody, map[string]string{"Authorization": "Bearer not-a-token", "X-Test-Client": client})
			return resp.StatusCode
		}
		for range 3 {
			if got := bad("mallory"); got != http.StatusUnauthorized {
				t.Fatalf("perClient=%v: mallory's bad token: status %d, want 401", perClient, got)
			}
		}
		if got := bad("mallory"); got != http.StatusTooManyRequests {
			t.Fatalf("perClient=%v: mallory over the burst: status %d, want 429", perClient, got)
		}
		resp := rawPost(t, ts.URL, initializeBody, map[string]string{"Authorization": "Bearer " + ts.token("alice"), "X-Test-Client": "alice"})
		want := http.StatusOK
		if !perClient {
			want = http.StatusTooManyRequests
		}
		if resp.StatusCode != want {
			t.Errorf("perClient=%v: alice with a good token after mallory's flood: status %d, want %d", perClient, resp.StatusCode, want)
		}
	}
}
