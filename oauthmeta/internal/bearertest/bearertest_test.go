package bearertest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
	"github.com/brakinglab/codemode-go/oauthmeta/internal/bearertest"
)

func TestClock(t *testing.T) {
	var c bearertest.Clock
	if d := time.Until(c.Now()); d > time.Second || d < -time.Second {
		t.Fatalf("zero clock is %v from now", d)
	}
	c.Advance(time.Hour)
	if d := time.Until(c.Now()); d < 59*time.Minute {
		t.Fatalf("advanced clock is %v from now", d)
	}
}

// A request without a token is refused with a challenge and never reaches
// the handler; one with the token reaches it once, with its principal and
// token info recorded.
func TestServeGet(t *testing.T) {
	v := bearer.VerifierFunc(func(_ context.Context, tok string) (*bearer.Token, error) {
		if tok != "good" {
			return nil, &bearer.TokenError{Description: "unknown token"}
		}
		return &bearer.Token{Principal: catalog.Principal{Subject: "alice"}, Expiry: time.Now().Add(time.Hour)}, nil
	})
	var s bearertest.Seen
	url := bearertest.Serve(t, v, &bearer.BearerOptions{ResourceMetadataURL: "https://rs.example/.well-known/oauth-protected-resource"}, s.Handler())
	if r := bearertest.Get(t, url, ""); r.Status != http.StatusUnauthorized || r.Challenge == "" || s.Calls.Load() != 0 {
		t.Fatalf("no token: %+v, calls %d", r, s.Calls.Load())
	}
	r := bearertest.Get(t, url, "Bearer good")
	if r.Status != http.StatusOK || r.Body != "ok" || s.Calls.Load() != 1 {
		t.Fatalf("good token: %+v, calls %d", r, s.Calls.Load())
	}
	if p := s.Principal.Load(); p == nil || p.Subject != "alice" {
		t.Fatalf("principal %+v", p)
	}
	if ti := s.Info.Load(); ti == nil || ti.UserID != "alice" {
		t.Fatalf("token info %+v", ti)
	}
}
