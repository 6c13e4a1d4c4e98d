package authserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/brakinglab/codemode-go/oauthmeta/jwtverify"
)

// verifyAccessToken checks a token the way the resource server will: go-oidc
// against /jwks with the MCP URL as audience, plus the RFC 9068 header.
func verifyAccessToken(t *testing.T, e *env, raw string) map[string]any {
	t.Helper()
	ks := oidc.NewRemoteKeySet(context.Background(), e.URL()+"/jwks")
	v := oidc.NewVerifier(e.srv.Issuer(), ks, &oidc.Config{
		ClientID:             e.Resource(),
		SupportedSigningAlgs: []string{"ES256"},
		Now:                  e.clock.Now,
	})
	tok, err := v.Verify(context.Background(), raw)
	if err != nil {
		t.Fatalf("go-oidc rejected the access token: %v", err)
	}
	var claims map[string]any
	if err := tok.Claims(&claims); err != nil {
		t.Fatal(err)
	}
	hdr, err := base64.RawURLEncoding.DecodeString(strings.Split(raw, ".")[0])
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]string
	json.Unmarshal(hdr, &h)
	if h["typ"] != "at+jwt" || h["alg"] != "ES256" || h["kid"] == "" {
		t.Errorf("JWT header = %v, want typ at+jwt, alg ES256 and a kid", h)
	}
	// And the resource server's own verifier (strict RFC 9068) accepts it.
	ov, err := jwtverify.New(e.srv.Issuer(), e.Resource(), &jwtverify.Options{
		Algorithms: []string{"ES256"}, Now: e.clock.Now, ClockSkew: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	ot, err := ov.Verify(context.Background(), raw)
	if err != nil {
		t.Fatalf("oauthmeta rejected the access token: %v", err)
	}
	if ot.Principal.Subject != claims["sub"] || ot.Principal.ClientID != claims["client_id"] || strings.Join(ot.Principal.Scopes, " ") != claims["scope"] {
		t.Errorf("oauthmeta principal %+v, claims %v", ot.Principal, claims)
	}
	return claims
}

func TestMetadata(t *testing.T) {
	e := newEnv(t, nil)
	resp, err := http.Get(e.URL() + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m oauthex.AuthServerMeta
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	want := oauthex.AuthServerMeta{
		Issuer:                                     e.URL(),
		AuthorizationEndpoint:                      e.URL() + "/authorize",
		TokenEndpoint:                              e.URL() + "/token",
		RegistrationEndpoint:                       e.URL() + "/register",
		JWKSURI:                                    e.URL() + "/jwks",
		ScopesSupported:                            []string{ScopeRead, ScopeWrite},
		ResponseTypesSupported:                     []string{"code"},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported:          []string{"none"},
		CodeChallengeMethodsSupported:              []string{"S256"},
		ClientIDMetadataDocumentSupported:          true,
		AuthorizationResponseIssParameterSupported: true,
	}
	if describe(m) != describe(want) {
		t.Errorf("metadata\n got %+v\nwant %+v", m, want)
	}
	// The go-sdk client's own discovery accepts it (issuer match, PKCE, URL schemes).
	got, err := oauthex.GetAuthServerMeta(context.Background(), e.URL()+"/.well-known/oauth-authorization-server", e.URL(), http.DefaultClient)
	if err != nil || got == nil {
		t.Fatalf("oauthex.GetAuthServerMeta: %v, %v", got, err)
	}
}

func TestFullFlowThroughForms(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "http://127.0.0.1:7777/callback"
	clientID := e.mustRegister("Lap Coach Desktop", cb)
	p := newPKCE()
	params := e.authParams(clientID, cb, p)
	c := browser()

	// A wrong password keeps the user on the sign-in page.
	first := get(t, c, e.URL()+"/authorize?"+params.Encode())
	action, fields := formOf(t, first)
	fields.Set("username", "demo")
	fields.Set("password", "nope")
	bad := postForm(t, c, e.URL()+action, fields)
	if bad.Status != http.StatusUnauthorized || !strings.Contains(bad.Body, "Wrong username or password") {
		t.Fatalf("wrong password: %d %s", bad.Status, bad.Body)
	}

	consent := e.signIn(c, params, "demo", "demo-pass")
	for _, want := range []string{"Lap Coach Desktop", "http://127.0.0.1:7777", ScopeRead, ScopeWrite, "Demo"} {
		if !strings.Contains(consent.Body, want) {
			t.Errorf("consent page does not show %q", want)
		}
	}
	if consent.Header.Get("X-Frame-Options") != "DENY" || consent.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("consent page headers: %v", consent.Header)
	}
	loc := e.decide(c, consent, "allow")
	q := loc.Query()
	if loc.Scheme+"://"+loc.Host+loc.Path != cb || q.Get("state") != params.Get("state") || q.Get("iss") != e.URL() || q.Get("code") == "" {
		t.Fatalf("redirect = %s", loc)
	}

	tok := e.exchange(clientID, q.Get("code"), cb, p)
	if tok.Status != http.StatusOK || tok.TokenType != "Bearer" || tok.RefreshToken == "" || tok.ExpiresIn != 900 {
		t.Fatalf("token response %+v", tok)
	}
	if tok.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("token Cache-Control = %q", tok.Header.Get("Cache-Control"))
	}
	if tok.Scope != ScopeRead+" "+ScopeWrite {
		t.Errorf("scope = %q", tok.Scope)
	}
	claims := verifyAccessToken(t, e, tok.AccessToken)
	for k, want := range map[string]any{
		"iss": e.URL(), "sub": "user-demo", "aud": e.Resource(), "client_id": clientID,
		"scope": ScopeRead + " " + ScopeWrite, "exp": float64(e.clock.Now().Add(15 * time.Minute).Unix()),
		"iat": float64(e.clock.Now().Unix()),
	} {
		if claims[k] != want {
			t.Errorf("claim %s = %v, want %v", k, claims[k], want)
		}
	}
	if claims["jti"] == "" || claims["jti"] == nil {
		t.Error("no jti claim")
	}

	// The session is remembered: a second authorization goes straight to consent.
	p2 := newPKCE()
	again := get(t, c, e.URL()+"/authorize?"+e.authParams(clientID, cb, p2).Encode())
	if !strings.Contains(again.Body, `value="allow"`) || strings.Contains(again.Body, `type="password"`) {
		t.Errorf("signed-in browser did not get the consent page: %s", again.Body)
	}

	// After the access token expires, the refresh token gets a new pair.
	e.clock.Advance(16 * time.Minute)
	r := e.refresh(clientID, tok.RefreshToken)
	if r.Status != http.StatusOK || r.RefreshToken == "" || r.RefreshToken == tok.RefreshToken {
		t.Fatalf("refresh: %+v", r)
	}
	if verifyAccessToken(t, e, r.AccessToken)["sub"] != "user-demo" {
		t.Error("refreshed token lost its subject")
	}
	// A refresh may narrow the scope.
	narrow := e.token(url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID}, "refresh_token": {r.RefreshToken}, "scope": {ScopeRead}})
	if narrow.Status != http.StatusOK || narrow.Scope != ScopeRead {
		t.Fatalf("narrowing refresh: %+v", narrow)
	}
}

func TestDenyAndScopeDefault(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "https://app.example.com/cb"
	clientID := e.mustRegister("Web App", cb)
	p := newPKCE()

	params := e.authParams(clientID, cb, p)
	c := browser()
	loc := e.decide(c, e.signIn(c, params, "alice", "alice-pass"), "deny")
	if q := loc.Query(); q.Get("error") != "access_denied" || q.Get("state") != params.Get("state") || q.Get("iss") != e.URL() || q.Get("code") != "" {
		t.Fatalf("deny redirect = %s", loc)
	}

	// No scope parameter: every supported scope is requested, and unknown
	// scopes next to known ones are dropped.
	for _, scope := range []string{"", "openid " + ScopeRead} {
		params = e.authParams(clientID, cb, p)
		if scope == "" {
			params.Del("scope")
		} else {
			params.Set("scope", scope)
		}
		consent := get(t, c, e.URL()+"/authorize?"+params.Encode())
		code := e.decide(c, consent, "allow").Query().Get("code")
		tok := e.exchange(clientID, code, cb, p)
		want := ScopeRead + " " + ScopeWrite
		if scope != "" {
			want = ScopeRead
		}
		if tok.Status != http.StatusOK || tok.Scope != want {
			t.Errorf("scope %q: got %+v, want scope %q", scope, tok, want)
		}
	}
}

func TestRestartKeepsClientsAndTokens(t *testing.T) {
	e := newEnv(t, nil)
	clientID, tok := e.login()
	var kid1 string
	e.db.QueryRow(`SELECT kid FROM authserver_signing_keys`).Scan(&kid1)
	e.ts.Close()
	e.db.Close()

	// A new server on the same file, configured with the same public URLs.
	e2 := newEnvOnDB(t, e.dbPath, &Options{Issuer: e.URL(), Resource: e.Resource(), Now: e.clock.Now})
	if _, err := e2.srv.lookupClient(context.Background(), clientID); err != nil {
		t.Fatalf("client forgotten after restart: %v", err)
	}
	var n int
	var kid2 string
	e2.db.QueryRow(`SELECT COUNT(*), MAX(kid) FROM authserver_signing_keys`).Scan(&n, &kid2)
	if n != 1 || kid2 != kid1 {
		t.Fatalf("signing keys after restart: %d rows, kid %q (was %q)", n, kid2, kid1)
	}
	// The old access token verifies against the new server's /jwks.
	ks := oidc.NewRemoteKeySet(context.Background(), e2.URL()+"/jwks")
	v := oidc.NewVerifier(e.URL(), ks, &oidc.Config{ClientID: e.Resource(), SupportedSigningAlgs: []string{"ES256"}, Now: e.clock.Now})
	if _, err := v.Verify(context.Background(), tok.AccessToken); err != nil {
		t.Fatalf("old access token rejected after restart: %v", err)
	}
	// The refresh token still works, and the client can still authorize.
	e.clock.Advance(20 * time.Minute)
	r := e2.token(url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID}, "refresh_token": {tok.RefreshToken}})
	if r.Status != http.StatusOK {
		t.Fatalf("refresh after restart: %+v", r)
	}
	if _, err := v.Verify(context.Background(), r.AccessToken); err != nil {
		t.Fatalf("new access token rejected: %v", err)
	}

	// Restarted with another MCP URL, old grants cannot mint tokens for it.
	e2.ts.Close()
	e2.db.Close()
	e3 := newEnvOnDB(t, e.dbPath, &Options{Issuer: e.URL(), Resource: "https://lab.example.com/mcp", Now: e.clock.Now})
	r3 := e3.token(url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID}, "refresh_token": {r.RefreshToken}})
	wantOAuthError(t, r3, http.StatusBadRequest, "invalid_grant")
}

// A token this server minted for another resource is refused by the MCP
// endpoint's verifier: audiences are not interchangeable.
func TestTokenForAnotherResourceRejected(t *testing.T) {
	e := newEnv(t, nil)
	other, err := e.srv.mintAccessToken("user-demo", "dcr_x", []string{ScopeRead}, "https://other.example/mcp")
	if err != nil {
		t.Fatal(err)
	}
	v, err := jwtverify.New(e.srv.Issuer(), e.Resource(), &jwtverify.Options{Algorithms: []string{"ES256"}, Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(context.Background(), other); err == nil {
		t.Fatal("token for another resource accepted")
	}
	mine, _ := e.srv.mintAccessToken("user-demo", "dcr_x", []string{ScopeRead}, e.Resource())
	if _, err := v.Verify(context.Background(), mine); err != nil {
		t.Fatalf("own token refused: %v", err)
	}
}

func TestNewValidatesOptions(t *testing.T) {
	db := openDB(t, t.TempDir()+"/x.db")
	cases := []struct {
		name string
		opts *Options
	}{
		{"nil options", nil},
		{"no resource", &Options{Issuer: "http://127.0.0.1:1"}},
		{"relative issuer", &Options{Issuer: "/oauth", Resource: "http://127.0.0.1:1/mcp"}},
		{"issuer with query", &Options{Issuer: "http://127.0.0.1:1/?x=1", Resource: "http://127.0.0.1:1/mcp"}},
		{"plain http off loopback", &Options{Issuer: "http://lab.example.com", Resource: "http://lab.example.com/mcp"}},
		{"bad scope", &Options{Issuer: "http://127.0.0.1:1", Resource: "http://127.0.0.1:1/mcp", ScopesSupported: []string{"a b"}}},
	}
	for _, tc := range cases {
		if _, err := New(db, demoUsers, tc.opts); err == nil {
			t.Errorf("%s: New succeeded", tc.name)
		}
	}
	if _, err := New(nil, demoUsers, &Options{Issuer: "http://x", Resource: "http://x/mcp"}); err == nil {
		t.Error("nil db accepted")
	}
}

func TestIssuerWithPath(t *testing.T) {
	db := openDB(t, t.TempDir()+"/p.db")
	s, err := New(db, demoUsers, &Options{Issuer: "https://lab.example.com/oauth", Resource: "https://lab.example.com/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/.well-known/oauth-authorization-server/oauth", "/oauth/jwks", "/oauth/register", "/oauth/token",
		"/oauth/authorize", "/oauth/authorize/signin", "/oauth/authorize/consent", "/oauth/authorize/login"}
	if !slices.Equal(s.Paths(), want) {
		t.Errorf("Paths() = %v", s.Paths())
	}
	if m := s.Metadata(); m.TokenEndpoint != "https://lab.example.com/oauth/token" {
		t.Errorf("token endpoint %q", m.TokenEndpoint)
	}
}
