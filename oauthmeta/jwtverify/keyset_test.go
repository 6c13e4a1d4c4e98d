package jwtverify_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
	"github.com/brakinglab/codemode-go/oauthmeta/internal/bearertest"
	"github.com/brakinglab/codemode-go/oauthmeta/jwtverify"
	. "github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

// A flood of tokens with unknown key ids must not turn into a flood of
// JWKS requests at the issuer.
func TestUnknownKidFloodIsRateLimited(t *testing.T) {
	iss := NewIssuer(t, nil)
	clk := new(bearertest.Clock)
	v := mustVerifier(t, iss, testResource, &jwtverify.Options{Now: clk.Now})
	ctx := context.Background()

	const n = 1000
	forged := make([]string, n)
	for i := range forged {
		forged[i] = iss.Mint(testResource, WithAlg(AlgEdDSA), WithKid(fmt.Sprintf("forged-%d", i)))
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				_, err := v.Verify(ctx, forged[i])
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		var te *bearer.TokenError
		if !errors.As(err, &te) || !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("forged token: %v, want a TokenError wrapping auth.ErrInvalidToken", err)
		}
	}
	t.Logf("%d unknown-kid tokens caused %d JWKS fetch(es)", n, iss.JWKSFetches())
	if got := iss.JWKSFetches(); got < 1 || got > 2 {
		t.Fatalf("%d JWKS fetches for %d unknown-kid tokens, want 1 or 2", got, n)
	}
	if got := iss.MetadataFetches(); got != 1 {
		t.Errorf("%d metadata fetches, want 1", got)
	}

	// Genuine tokens still verify from the cached set, without a fetch.
	before := iss.JWKSFetches()
	if _, err := v.Verify(ctx, iss.Mint(testResource)); err != nil {
		t.Fatal(err)
	}
	if got := iss.JWKSFetches(); got != before {
		t.Errorf("valid token caused %d fetches", got-before)
	}

	// Once the interval has passed, one unknown kid may refresh the set
	// once more: that is how a rotated-in key gets picked up.
	clk.Advance(jwtverify.DefaultKeyRefreshInterval + time.Second)
	for i := range 50 {
		_, _ = v.Verify(ctx, forged[i])
	}
	if got := iss.JWKSFetches(); got != before+1 {
		t.Errorf("after the interval: %d new fetches, want 1", got-before)
	}
}

func TestVerifierDiscoversKeys(t *testing.T) {
	tests := []struct {
		name string
		opts *Options
	}{
		{"RFC 8414 at the root", nil},
		{"OpenID discovery only", &Options{NoRFC8414: true}},
		{"issuer with a path", &Options{Path: "/tenant-1"}},
		{"issuer with a path, OpenID only", &Options{Path: "/tenant-1", NoRFC8414: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			iss := NewIssuer(t, tt.opts)
			v := mustVerifier(t, iss, testResource, nil)
			tok, err := v.Verify(context.Background(), iss.Mint(testResource, WithScope("a b")))
			if err != nil {
				t.Fatal(err)
			}
			if tok.Issuer != iss.URL || tok.Principal.Subject != DefaultSubject {
				t.Errorf("token %+v", tok)
			}
		})
	}
}

func TestVerifierWithStaticJWKSURL(t *testing.T) {
	iss := NewIssuer(t, nil)
	v := mustVerifier(t, iss, testResource, &jwtverify.Options{JWKSURL: iss.JWKSURL})
	if _, err := v.Verify(context.Background(), iss.Mint(testResource)); err != nil {
		t.Fatal(err)
	}
	if n := iss.MetadataFetches(); n != 0 {
		t.Errorf("%d metadata fetches with a configured JWKS URL", n)
	}
}

func TestVerifierClaimNames(t *testing.T) {
	iss := NewIssuer(t, nil)
	v := mustVerifier(t, iss, testResource, &jwtverify.Options{Claims: bearer.ClaimNames{
		Subject:  "oid",
		ClientID: []string{"appid"},
		Scopes:   []string{"roles"},
	}})
	tok, err := v.Verify(context.Background(), iss.Mint(testResource,
		WithClaim("oid", "u-42"), WithClaim("appid", "app-9"), WithClaim("roles", []string{"Coach.Read"})))
	if err != nil {
		t.Fatal(err)
	}
	p := tok.Principal
	if p.Subject != "u-42" || p.ClientID != "app-9" || len(p.Scopes) != 1 || p.Scopes[0] != "Coach.Read" {
		t.Errorf("principal %+v", p)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name, issuer, resource string
		opts                   *jwtverify.Options
	}{
		{"HMAC algorithm", "https://as.example.com", testResource, &jwtverify.Options{Algorithms: []string{"HS256"}}},
		{"none algorithm", "https://as.example.com", testResource, &jwtverify.Options{Algorithms: []string{"RS256", "none"}}},
		{"http issuer", "http://as.example.com", testResource, nil},
		{"relative resource", "https://as.example.com", "/mcp", nil},
		{"resource with fragment", "https://as.example.com", testResource + "#x", nil},
		{"http JWKS", "https://as.example.com", testResource, &jwtverify.Options{JWKSURL: "http://keys.example.com/jwks"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := jwtverify.New(tt.issuer, tt.resource, tt.opts); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestRootResourceAudience(t *testing.T) {
	iss := NewIssuer(t, nil)
	v := mustVerifier(t, iss, "https://coach.example.com", nil)
	for _, aud := range []string{"https://coach.example.com", "https://coach.example.com/"} {
		if _, err := v.Verify(context.Background(), iss.Mint(aud)); err != nil {
			t.Errorf("aud %q: %v", aud, err)
		}
	}
	if _, err := v.Verify(context.Background(), iss.Mint("https://coach.example.com/mcp")); err == nil {
		t.Error("aud with a path accepted for a root resource")
	}
}
