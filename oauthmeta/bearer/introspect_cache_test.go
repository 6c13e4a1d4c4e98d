package bearer_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
	"github.com/brakinglab/codemode-go/oauthmeta/internal/bearertest"
	. "github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

// countingIntrospection forwards to the test issuer's introspection
// endpoint and counts the calls.
func countingIntrospection(t *testing.T, iss *Issuer) (url string, calls *atomic.Int32) {
	calls = new(atomic.Int32)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		req, _ := http.NewRequest(http.MethodPost, iss.URL+"/introspect", r.Body)
		req.Header = r.Header.Clone()
		resp, err := iss.Client().Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(ts.Close)
	return ts.URL, calls
}

// TestIntrospectionResultsCached: every request used to cost one call to
// the authorization server, and codemode rate-limits only after
// authentication, so a client repeating one token (valid or not) turned
// each of its requests into an introspection call. Results are cached
// briefly, never past the token's expiry.
func TestIntrospectionResultsCached(t *testing.T) {
	iss := NewIssuer(t, nil)
	endpoint, calls := countingIntrospection(t, iss)
	clk := new(bearertest.Clock)
	v := newIntrospector(t, iss, &bearer.IntrospectionOptions{Endpoint: endpoint, Now: clk.Now})
	ctx := context.Background()
	good := iss.Mint(testResource, WithScope(testScope))
	for range 5 {
		if _, err := v.Verify(ctx, good); err != nil {
			t.Fatal(err)
		}
		if _, err := v.Verify(ctx, "never-issued"); err == nil {
			t.Fatal("unknown token accepted")
		}
	}
	if n := calls.Load(); n != 2 {
		t.Fatalf("%d introspection calls for 10 verifications of 2 tokens, want 2", n)
	}
	// After the cache lifetime the server is asked again, and a revocation
	// is seen.
	iss.Revoke(good)
	clk.Advance(bearer.DefaultIntrospectionCacheTTL + time.Second)
	if _, err := v.Verify(ctx, good); err == nil {
		t.Fatal("revoked token still accepted after the cache lifetime")
	}
	if n := calls.Load(); n != 3 {
		t.Fatalf("%d calls, want 3", n)
	}
	// A negative lifetime turns the cache off.
	off := newIntrospector(t, iss, &bearer.IntrospectionOptions{Endpoint: endpoint, CacheTTL: -1})
	for range 2 {
		off.Verify(ctx, "never-issued")
	}
	if n := calls.Load(); n != 5 {
		t.Fatalf("%d calls with the cache off, want 5", n)
	}
}
