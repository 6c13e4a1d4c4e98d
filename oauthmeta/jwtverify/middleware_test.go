package jwtverify_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
	"github.com/brakinglab/codemode-go/oauthmeta/internal/bearertest"
	"github.com/brakinglab/codemode-go/oauthmeta/jwtverify"
	. "github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

const (
	testResource = "https://coach.example.com/mcp"
	testPRM      = "https://coach.example.com/.well-known/oauth-protected-resource/mcp"
	testScope    = "sessions:read"
)

// tamper replaces the payload of a signed token, keeping its signature.
func tamper(t *testing.T, token string, edit func(map[string]any)) string {
	t.Helper()
	parts := strings.Split(token, ".")
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(b, &claims); err != nil {
		t.Fatal(err)
	}
	edit(claims)
	b, _ = json.Marshal(claims)
	parts[1] = base64.RawURLEncoding.EncodeToString(b)
	return strings.Join(parts, ".")
}

func invalidToken(desc string) string {
	return `Bearer error="invalid_token", error_description="` + strings.ReplaceAll(desc, `"`, `\"`) +
		`", resource_metadata="` + testPRM + `"`
}

func TestRequireBearerRejects(t *testing.T) {
	iss := NewIssuer(t, nil)
	strict := mustVerifier(t, iss, testResource, nil)
	relaxed := mustVerifier(t, iss, testResource, &jwtverify.Options{AcceptJWTType: true})
	now := time.Now()
	valid := func(opts ...TokenOption) string {
		return iss.Mint(testResource, append([]TokenOption{WithScope(testScope)}, opts...)...)
	}

	tests := []struct {
		name          string
		verifier      bearer.Verifier // default strict
		authorization string
		query         string
		status        int
		challenge     string
		errorCode     string
	}{
		{
			name:      "missing token",
			status:    http.StatusUnauthorized,
			challenge: `Bearer scope="sessions:read", resource_metadata="` + testPRM + `"`,
			errorCode: "unauthorized",
		},
		{
			name:          "other scheme",
			authorization: "Basic dXNlcjpwYXNz",
			status:        http.StatusUnauthorized,
			challenge:     `Bearer scope="sessions:read", resource_metadata="` + testPRM + `"`,
			errorCode:     "unauthorized",
		},
		{
			name:          "expired",
			authorization: "Bearer " + valid(WithExpiry(now.Add(-time.Hour)), WithIssuedAt(now.Add(-2*time.Hour))),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken("token expired"),
		},
		{
			name:          "expired beyond the clock skew",
			authorization: "Bearer " + valid(WithExpiry(now.Add(-45*time.Second))),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken("token expired"),
		},
		{
			name:          "no exp",
			authorization: "Bearer " + valid(WithoutClaim("exp")),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken(`token has no valid "exp" claim`),
		},
		{
			name:          "not yet valid",
			authorization: "Bearer " + valid(WithNotBefore(now.Add(time.Hour))),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken("token not yet valid (nbf is in the future)"),
		},
		{
			name:          "issued in the future",
			authorization: "Bearer " + valid(WithIssuedAt(now.Add(10*time.Minute))),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken("token issued in the future (iat)"),
		},
		{
			name:          "wrong iss",
			authorization: "Bearer " + valid(WithClaim("iss", "https://evil.example.com")),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken(fmt.Sprintf("token issuer %q is not the trusted issuer %q", "https://evil.example.com", iss.URL)),
		},
		{
			name:          "wrong aud",
			authorization: "Bearer " + iss.Mint("https://other.example.com/mcp", WithScope(testScope)),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken(`token audience is not this resource: request a token for resource "` + testResource + `"`),
		},
		{
			name:          "aud with a trailing slash",
			authorization: "Bearer " + iss.Mint(testResource+"/", WithScope(testScope)),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken(`token audience is not this resource: request a token for resource "` + testResource + `"`),
		},
		{
			name:          "alg none",
			authorization: "Bearer " + valid(WithAlg(AlgNone)),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken(`signing algorithm "none" is not accepted (accepted: RS256, ES256, EdDSA)`),
		},
		{
			name:          "HS256 keyed with the RSA public key",
			authorization: "Bearer " + valid(WithAlg(AlgHS256)),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken(`signing algorithm "HS256" is not accepted (accepted: RS256, ES256, EdDSA)`),
		},
		{
			name:          "unknown kid",
			authorization: "Bearer " + valid(WithKid("rotated-away")),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken(`token signed with an unknown key (kid "rotated-away")`),
		},
		{
			name:          "long unknown kid is clipped in the description",
			authorization: "Bearer " + valid(WithKid(strings.Repeat("k", 5000))),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken(`token signed with an unknown key (kid "` + strings.Repeat("k", 64) + `...")`),
		},
		{
			name:          "ES256 signature under the RSA key id",
			authorization: "Bearer " + valid(WithAlg(AlgES256), WithKid(KidRSA)),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken("token signature is invalid"),
		},
		{
			name: "tampered payload",
			authorization: "Bearer " + tamper(t, valid(), func(c map[string]any) {
				c["sub"] = "admin"
			}),
			status:    http.StatusUnauthorized,
			challenge: invalidToken("token signature is invalid"),
		},
		{
			name:          "ID token in strict mode",
			authorization: "Bearer " + valid(WithType("JWT"), WithClaim("nonce", "n-0S6_WzA2Mj")),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken(`token type "JWT" is not accepted: an RFC 9068 access token ("at+jwt") is required`),
		},
		{
			name:          "ID token in relaxed mode",
			verifier:      relaxed,
			authorization: "Bearer " + valid(WithType("JWT"), WithClaim("nonce", "n-0S6_WzA2Mj")),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken("ID tokens are not accepted: send an access token"),
		},
		{
			name:          "no typ in strict mode",
			authorization: "Bearer " + valid(WithType("")),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken(`token has no "typ" header: an RFC 9068 access token ("at+jwt") is required`),
		},
		{
			name:          "missing sub",
			authorization: "Bearer " + valid(WithoutClaim("sub")),
			status:        http.StatusUnauthorized,
			challenge:     invalidToken(`token has no "sub" claim`),
		},
		{
			name:          "not a JWT",
			authorization: "Bearer abc.def",
			status:        http.StatusUnauthorized,
			challenge:     invalidToken("malformed token: not a signed JWT"),
		},
		{
			name:          "token in query string",
			authorization: "Bearer " + valid(),
			query:         "?access_token=" + valid(),
			status:        http.StatusBadRequest,
			challenge: `Bearer error="invalid_request", error_description="access tokens are accepted only in the Authorization header, never in the URL", resource_metadata="` +
				testPRM + `"`,
		},
		{
			name:          "malformed header",
			authorization: "Bearer two tokens",
			status:        http.StatusBadRequest,
			challenge: `Bearer error="invalid_request", error_description="the bearer token contains characters not allowed in a token", resource_metadata="` +
				testPRM + `"`,
		},
		{
			name:          "missing scope",
			authorization: "Bearer " + iss.Mint(testResource, WithScope("profile sessions:write")),
			status:        http.StatusForbidden,
			challenge: `Bearer error="insufficient_scope", error_description="token lacks required scope: sessions:read", scope="sessions:read", resource_metadata="` +
				testPRM + `"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.verifier
			if v == nil {
				v = strict
			}
			var s bearertest.Seen
			url := bearertest.Serve(t, v, &bearer.BearerOptions{ResourceMetadataURL: testPRM, Scopes: []string{testScope}}, s.Handler())
			resp := bearertest.Get(t, url+"/mcp"+tt.query, tt.authorization)
			if resp.Status != tt.status {
				t.Errorf("status %d, want %d (body %s)", resp.Status, tt.status, resp.Body)
			}
			if resp.Challenge != tt.challenge {
				t.Errorf("WWW-Authenticate\n got %s\nwant %s", resp.Challenge, tt.challenge)
			}
			if n := s.Calls.Load(); n != 0 {
				t.Errorf("protected handler called %d times", n)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			// The body repeats the challenge's error and description.
			var body struct {
				Error       string `json:"error"`
				Description string `json:"error_description"`
			}
			if err := json.Unmarshal([]byte(resp.Body), &body); err != nil {
				t.Fatalf("body %q: %v", resp.Body, err)
			}
			cs, err := oauthex.ParseWWWAuthenticate([]string{resp.Challenge})
			if err != nil || len(cs) != 1 {
				t.Fatalf("go-sdk cannot parse %q: %v", resp.Challenge, err)
			}
			wantCode := tt.errorCode
			if wantCode == "" {
				wantCode = cs[0].Params["error"]
				if body.Description != cs[0].Params["error_description"] {
					t.Errorf("body description %q, challenge %q", body.Description, cs[0].Params["error_description"])
				}
			}
			if body.Error != wantCode {
				t.Errorf("body error %q, want %q", body.Error, wantCode)
			}
		})
	}
}

func TestRequireBearerAdmits(t *testing.T) {
	iss := NewIssuer(t, nil)
	strict := mustVerifier(t, iss, testResource, nil)
	relaxed := mustVerifier(t, iss, testResource, &jwtverify.Options{AcceptJWTType: true})
	now := time.Now()

	tests := []struct {
		name       string
		verifier   bearer.Verifier
		token      string
		wantScopes []string
		wantClient string
	}{
		{"RS256", strict, iss.Mint(testResource, WithScope("sessions:read profile")), []string{"sessions:read", "profile"}, DefaultClientID},
		{"ES256", strict, iss.Mint(testResource, WithAlg(AlgES256), WithScope(testScope)), []string{testScope}, DefaultClientID},
		{"EdDSA", strict, iss.Mint(testResource, WithAlg(AlgEdDSA), WithScope(testScope)), []string{testScope}, DefaultClientID},
		{"scp array", strict, iss.Mint(testResource, WithClaim("scp", []string{testScope, "x"})), []string{testScope, "x"}, DefaultClientID},
		{"scp string", strict, iss.Mint(testResource, WithClaim("scp", testScope)), []string{testScope}, DefaultClientID},
		{"azp when no client_id", strict, iss.Mint(testResource, WithScope(testScope), WithoutClaim("client_id"), WithClaim("azp", "app-7")), []string{testScope}, "app-7"},
		{"audience array", strict, iss.Mint(testResource, WithScope(testScope), WithClaim("aud", []string{"https://a.example.com", testResource})), []string{testScope}, DefaultClientID},
		{"media type typ", strict, iss.Mint(testResource, WithScope(testScope), WithType("application/at+jwt")), []string{testScope}, DefaultClientID},
		{"expired within the clock skew", strict, iss.Mint(testResource, WithScope(testScope), WithExpiry(now.Add(-10*time.Second))), []string{testScope}, DefaultClientID},
		{"nbf within the clock skew", strict, iss.Mint(testResource, WithScope(testScope), WithNotBefore(now.Add(10*time.Second))), []string{testScope}, DefaultClientID},
		{"typ JWT in relaxed mode", relaxed, iss.Mint(testResource, WithScope(testScope), WithType("JWT")), []string{testScope}, DefaultClientID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s bearertest.Seen
			url := bearertest.Serve(t, tt.verifier, &bearer.BearerOptions{ResourceMetadataURL: testPRM, Scopes: []string{testScope}}, s.Handler())
			resp := bearertest.Get(t, url, "Bearer "+tt.token)
			if resp.Status != http.StatusOK || s.Calls.Load() != 1 {
				t.Fatalf("status %d, calls %d, body %s", resp.Status, s.Calls.Load(), resp.Body)
			}
			p := s.Principal.Load()
			if p == nil || p.Subject != DefaultSubject || p.ClientID != tt.wantClient || !slices.Equal(p.Scopes, tt.wantScopes) {
				t.Errorf("principal %+v", p)
			}
			ti := s.Info.Load()
			if ti == nil || ti.UserID != DefaultSubject || !slices.Equal(ti.Scopes, tt.wantScopes) || ti.Extra["client_id"] != tt.wantClient || ti.Expiration.IsZero() {
				t.Errorf("go-sdk TokenInfo %+v", ti)
			}
		})
	}
}

func TestRequireBearerUnavailable(t *testing.T) {
	iss := NewIssuer(t, nil)
	token := iss.Mint(testResource)
	v := mustVerifier(t, iss, testResource, nil)
	iss.Close() // keys can no longer be fetched
	var s bearertest.Seen
	url := bearertest.Serve(t, v, &bearer.BearerOptions{ResourceMetadataURL: testPRM}, s.Handler())
	resp := bearertest.Get(t, url, "Bearer "+token)
	if resp.Status != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "30" || s.Calls.Load() != 0 {
		t.Fatalf("status %d, Retry-After %q, calls %d", resp.Status, resp.Header.Get("Retry-After"), s.Calls.Load())
	}
	if resp.Challenge != "" {
		t.Errorf("unexpected challenge %q: the token is not at fault", resp.Challenge)
	}
}
