package bearer_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
	"github.com/brakinglab/codemode-go/oauthmeta/internal/bearertest"
	. "github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

const (
	testResource = "https://coach.example.com/mcp"
	testPRM      = "https://coach.example.com/.well-known/oauth-protected-resource/mcp"
	testScope    = "sessions:read"
)

// TestRequireBearerSuggestedScopes: a request without a token is told every
// scope the server suggests, while a token needs only the required ones.
func TestRequireBearerSuggestedScopes(t *testing.T) {
	iss := NewIssuer(t, nil)
	v := iss.Verifier(testResource)
	var s bearertest.Seen
	url := bearertest.Serve(t, v, &bearer.BearerOptions{
		ResourceMetadataURL: testPRM,
		Scopes:              []string{testScope},
		SuggestedScopes:     []string{testScope, "sessions:write"},
	}, s.Handler())

	resp := bearertest.Get(t, url+"/mcp", "")
	want := `Bearer scope="sessions:read sessions:write", resource_metadata="` + testPRM + `"`
	if resp.Status != http.StatusUnauthorized || resp.Challenge != want {
		t.Errorf("no token: %d %s, want 401 %s", resp.Status, resp.Challenge, want)
	}
	resp = bearertest.Get(t, url+"/mcp", "Bearer "+iss.Mint(testResource, WithScope(testScope)))
	if resp.Status != http.StatusOK || s.Calls.Load() != 1 {
		t.Errorf("token with the required scope only: status %d, calls %d", resp.Status, s.Calls.Load())
	}
}

// skewedVerifier accepts any token as one that expired a minute ago, and
// reports how much clock skew it tolerates.
type skewedVerifier struct{ skew time.Duration }

func (v skewedVerifier) Verify(context.Context, string) (*bearer.Token, error) {
	return &bearer.Token{Principal: catalog.Principal{Subject: "u"}, Expiry: time.Now().Add(-time.Minute)}, nil
}

func (v skewedVerifier) ClockSkew() time.Duration { return v.skew }

// TestRequireBearerUsesTheVerifiersClockSkew checks that a Verifier's
// ClockSkewer tolerance reaches go-sdk's expiry check: a token it accepted
// within five minutes of skew passes, and with the default 30 s go-sdk
// refuses the same token.
func TestRequireBearerUsesTheVerifiersClockSkew(t *testing.T) {
	var s bearertest.Seen
	tolerant := bearertest.Serve(t, skewedVerifier{skew: 5 * time.Minute}, nil, s.Handler())
	if r := bearertest.Get(t, tolerant, "Bearer tok"); r.Status != http.StatusOK {
		t.Errorf("with 5 min skew: %d %s", r.Status, r.Body)
	}
	strict := bearertest.Serve(t, bearer.VerifierFunc(skewedVerifier{}.Verify), nil, s.Handler())
	if r := bearertest.Get(t, strict, "Bearer tok"); r.Status != http.StatusUnauthorized {
		t.Errorf("with the default skew: %d %s, want 401", r.Status, r.Body)
	}
}
