package bearer_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/brakinglab/codemode-go/oauthmeta"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
	"github.com/brakinglab/codemode-go/oauthmeta/internal/bearertest"
	. "github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

func newIntrospector(t *testing.T, iss *Issuer, o *bearer.IntrospectionOptions) *bearer.IntrospectionVerifier {
	t.Helper()
	if o == nil {
		o = &bearer.IntrospectionOptions{}
	}
	if o.ClientID == "" {
		o.ClientID, o.ClientSecret = IntrospectionClientID, IntrospectionClientSecret
	}
	v, err := bearer.NewIntrospectionVerifier(iss.URL, testResource, o)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestIntrospectionVerifier(t *testing.T) {
	iss := NewIssuer(t, nil)
	discovered := newIntrospector(t, iss, nil)
	revoked := iss.Mint(testResource, WithScope(testScope))
	iss.Revoke(revoked)

	tests := []struct {
		name     string
		verifier bearer.Verifier
		token    string
		want     string // error description; "" means admitted
	}{
		{"active", discovered, iss.Mint(testResource, WithScope(testScope)), ""},
		{"explicit endpoint", newIntrospector(t, iss, &bearer.IntrospectionOptions{Endpoint: iss.URL + "/introspect"}), iss.Mint(testResource, WithScope(testScope)), ""},
		{"revoked", discovered, revoked, "token is not active (revoked, expired or unknown)"},
		{"unknown", discovered, "opaque-token-the-issuer-never-issued", "token is not active (revoked, expired or unknown)"},
		{"wrong audience", discovered, iss.Mint("https://other.example.com/mcp"), `token audience is not this resource: request a token for resource "` + testResource + `"`},
		{"no audience", discovered, iss.Mint(testResource, WithoutClaim("aud")), `token audience is not this resource: request a token for resource "` + testResource + `"`},
		{"no audience allowed", newIntrospector(t, iss, &bearer.IntrospectionOptions{AllowMissingAudience: true}), iss.Mint(testResource, WithoutClaim("aud"), WithScope(testScope)), ""},
		{"expired", discovered, iss.Mint(testResource, WithExpiry(time.Now().Add(-time.Hour))), "token expired"},
		{"no subject", discovered, iss.Mint(testResource, WithoutClaim("sub")), `token has no "sub"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := tt.verifier.Verify(context.Background(), tt.token)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if tok.Principal.Subject != DefaultSubject || tok.Principal.ClientID != DefaultClientID || !slices.Equal(tok.Principal.Scopes, []string{testScope}) {
					t.Errorf("principal %+v", tok.Principal)
				}
				return
			}
			var te *bearer.TokenError
			if !errors.As(err, &te) || te.Description != tt.want || !errors.Is(err, auth.ErrInvalidToken) {
				t.Fatalf("err %v, want TokenError %q", err, tt.want)
			}
		})
	}
}

// Introspection plugs into the same middleware as JWTs.
func TestIntrospectionThroughMiddleware(t *testing.T) {
	iss := NewIssuer(t, nil)
	var s bearertest.Seen
	url := bearertest.Serve(t, newIntrospector(t, iss, nil), &bearer.BearerOptions{ResourceMetadataURL: testPRM, Scopes: []string{testScope}}, s.Handler())
	if resp := bearertest.Get(t, url, "Bearer "+iss.Mint(testResource, WithScope(testScope))); resp.Status != http.StatusOK || s.Calls.Load() != 1 {
		t.Fatalf("active token: %d %s", resp.Status, resp.Body)
	}
	if ti := s.Info.Load(); ti == nil || ti.UserID != DefaultSubject {
		t.Errorf("TokenInfo %+v", ti)
	}
	tok := iss.Mint(testResource, WithScope(testScope))
	iss.Revoke(tok)
	if resp := bearertest.Get(t, url, "Bearer "+tok); resp.Status != http.StatusUnauthorized || resp.Challenge != invalidToken("token is not active (revoked, expired or unknown)") {
		t.Errorf("revoked token: %d %s", resp.Status, resp.Challenge)
	}
	if s.Calls.Load() != 1 {
		t.Errorf("handler called for a revoked token")
	}
}

func TestIntrospectionUnavailable(t *testing.T) {
	iss := NewIssuer(t, nil)
	v := newIntrospector(t, iss, &bearer.IntrospectionOptions{ClientID: IntrospectionClientID, ClientSecret: "wrong"})
	_, err := v.Verify(context.Background(), iss.Mint(testResource))
	if !errors.Is(err, oauthmeta.ErrUnavailable) || errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("bad client credentials: %v, want ErrUnavailable (the server's problem, not the token's)", err)
	}
	if _, err := bearer.NewIntrospectionVerifier(iss.URL, testResource, nil); err == nil {
		t.Error("no ClientID accepted")
	}
}
