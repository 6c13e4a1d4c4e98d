package authserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

func TestCodeReplayRevokesTokens(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "http://127.0.0.1:9999/callback"
	clientID := e.mustRegister("Replay", cb)
	p := newPKCE()
	code := e.authorize(clientID, cb, p)
	first := e.exchange(clientID, code, cb, p)
	if first.Status != http.StatusOK {
		t.Fatalf("first exchange: %+v", first)
	}
	wantOAuthError(t, e.exchange(clientID, code, cb, p), http.StatusBadRequest, "invalid_grant")
	// The refresh token obtained with the code is revoked by the replay.
	wantOAuthError(t, e.refresh(clientID, first.RefreshToken), http.StatusBadRequest, "invalid_grant")
}

func TestCodeBindings(t *testing.T) {
	const cb = "http://127.0.0.1:9999/callback"
	cases := []struct {
		name   string
		mutate func(e *env, v url.Values, clock *clock)
		status int
		code   string
	}{
		{"wrong verifier", func(e *env, v url.Values, _ *clock) { v.Set("code_verifier", newPKCE().Verifier) }, 400, "invalid_grant"},
		{"missing verifier", func(e *env, v url.Values, _ *clock) { v.Del("code_verifier") }, 400, "invalid_request"},
		{"expired code", func(e *env, v url.Values, c *clock) { c.Advance(61 * time.Second) }, 400, "invalid_grant"},
		{"other redirect_uri", func(e *env, v url.Values, _ *clock) { v.Set("redirect_uri", "http://127.0.0.1:9999/other") }, 400, "invalid_grant"},
		{"other client", func(e *env, v url.Values, _ *clock) { v.Set("client_id", e.mustRegister("Other", cb)) }, 400, "invalid_grant"},
		{"unknown client", func(e *env, v url.Values, _ *clock) { v.Set("client_id", "dcr_nope") }, 401, "invalid_client"},
		{"no client", func(e *env, v url.Values, _ *clock) { v.Del("client_id") }, 401, "invalid_client"},
		{"foreign resource", func(e *env, v url.Values, _ *clock) { v.Set("resource", "https://evil.example/mcp") }, 400, "invalid_target"},
		{"unknown code", func(e *env, v url.Values, _ *clock) { v.Set("code", "AAAA") }, 400, "invalid_grant"},
		{"unsupported grant", func(e *env, v url.Values, _ *clock) { v.Set("grant_type", "password") }, 400, "unsupported_grant_type"},
		{"client secret", func(e *env, v url.Values, _ *clock) { v.Set("client_secret", "x") }, 200, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			clientID := e.mustRegister("Client", cb)
			p := newPKCE()
			code := e.authorize(clientID, cb, p)
			v := url.Values{
				"grant_type": {"authorization_code"}, "client_id": {clientID}, "code": {code},
				"redirect_uri": {cb}, "code_verifier": {p.Verifier}, "resource": {e.Resource()},
			}
			tc.mutate(e, v, e.clock)
			r := e.token(v)
			if tc.status == 200 {
				if r.Status != 200 {
					t.Fatalf("got %+v", r)
				}
				return
			}
			wantOAuthError(t, r, tc.status, tc.code)
			if tc.name == "wrong verifier" {
				// A failed attempt burns the code: no second guess.
				v.Set("code_verifier", p.Verifier)
				wantOAuthError(t, e.token(v), 400, "invalid_grant")
			}
		})
	}
}

// An unknown client using HTTP Basic gets 401 invalid_client with a challenge.
func TestBasicAuthUnknownClient(t *testing.T) {
	e := newEnv(t, nil)
	req, _ := http.NewRequest(http.MethodPost, e.URL()+"/token", strings.NewReader("grant_type=refresh_token&refresh_token=x"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("dcr_x", "secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") == "" {
		t.Fatalf("status %d, WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

func TestRefreshReuseRevokesFamily(t *testing.T) {
	e := newEnv(t, nil)
	clientID, tok := e.login()
	r1 := e.refresh(clientID, tok.RefreshToken)
	if r1.Status != 200 {
		t.Fatalf("refresh: %+v", r1)
	}
	// Reusing the rotated token is theft or a bug: the whole family dies,
	// including the token just issued.
	wantOAuthError(t, e.refresh(clientID, tok.RefreshToken), 400, "invalid_grant")
	wantOAuthError(t, e.refresh(clientID, r1.RefreshToken), 400, "invalid_grant")

	// Other grants are unaffected.
	_, other := e.login()
	if r := e.refresh(other.clientIDFromToken(t, e), other.RefreshToken); r.Status != 200 {
		t.Fatalf("unrelated family was revoked: %+v", r)
	}
}

// clientIDFromToken reads client_id from an access token's claims.
func (r tokenReply) clientIDFromToken(t *testing.T, e *env) string {
	return verifyAccessToken(t, e, r.AccessToken)["client_id"].(string)
}

func TestRefreshChecks(t *testing.T) {
	e := newEnv(t, nil)
	clientID, tok := e.login()
	other := e.mustRegister("Other", "http://127.0.0.1:1/cb")
	cases := []struct {
		name   string
		v      url.Values
		status int
		code   string
	}{
		{"other client", url.Values{"client_id": {other}, "refresh_token": {tok.RefreshToken}}, 400, "invalid_grant"},
		{"foreign resource", url.Values{"client_id": {clientID}, "refresh_token": {tok.RefreshToken}, "resource": {"https://evil.example/mcp"}}, 400, "invalid_target"},
		{"wider scope", url.Values{"client_id": {clientID}, "refresh_token": {tok.RefreshToken}, "scope": {"admin"}}, 400, "invalid_scope"},
		{"unknown token", url.Values{"client_id": {clientID}, "refresh_token": {"rt_nope"}}, 400, "invalid_grant"},
		{"missing token", url.Values{"client_id": {clientID}}, 400, "invalid_request"},
	}
	for _, tc := range cases {
		tc.v.Set("grant_type", "refresh_token")
		r := e.token(tc.v)
		if r.Status != tc.status || r.Error != tc.code {
			t.Errorf("%s: got %d %s (%s), want %d %s", tc.name, r.Status, r.Error, r.Description, tc.status, tc.code)
		}
	}
	// None of the refused attempts consumed the token.
	if r := e.refresh(clientID, tok.RefreshToken); r.Status != 200 {
		t.Fatalf("token unusable after refused attempts: %+v", r)
	}
	// An expired family cannot be refreshed.
	_, tok2 := e.login()
	e.clock.Advance(DefaultRefreshTokenTTL + time.Hour)
	wantOAuthError(t, e.refresh(tok2.clientIDFromTokenNoVerify(t), tok2.RefreshToken), 400, "invalid_grant")
}

// clientIDFromTokenNoVerify reads client_id without checking expiry.
func (r tokenReply) clientIDFromTokenNoVerify(t *testing.T) string {
	parts := strings.Split(r.AccessToken, ".")
	var c struct {
		ClientID string `json:"client_id"`
	}
	b, err := decodeSegment(parts[1])
	if err != nil || json.Unmarshal(b, &c) != nil {
		t.Fatal("bad token")
	}
	return c.ClientID
}

// TestAuthorizeErrorPages covers requests whose client or redirect URI cannot
// be trusted: the user sees an error page and is never redirected.
func TestAuthorizeErrorPages(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "https://app.example.com/callback"
	clientID := e.mustRegister("App", cb)
	loopID := e.mustRegister("Native", "http://127.0.0.1:8000/cb")
	cases := []struct {
		name   string
		client string
		uri    string
	}{
		{"unknown client", "dcr_unknown", cb},
		{"missing client", "", cb},
		{"missing redirect", clientID, ""},
		{"other host", clientID, "https://evil.example/callback"},
		{"other path", clientID, "https://app.example.com/callback2"},
		{"dot segments", clientID, "https://app.example.com/callback/../evil"},
		{"extra query", clientID, "https://app.example.com/callback?next=https://evil.example"},
		{"user info", clientID, "https://app.example.com@evil.example/callback"},
		{"fragment", clientID, "https://app.example.com/callback#x"},
		{"scheme relative", clientID, "//evil.example/callback"},
		{"http downgrade", clientID, "http://app.example.com/callback"},
		{"javascript", clientID, "javascript:alert(1)"},
		{"case change", clientID, "https://APP.example.com/callback"},
		{"trailing slash", clientID, "https://app.example.com/callback/"},
		{"loopback other host", loopID, "http://localhost:8000/cb"},
		{"loopback other path", loopID, "http://127.0.0.1:8000/cb/x"},
		{"loopback to evil", loopID, "http://evil.example:8000/cb"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := e.authParams(tc.client, tc.uri, newPKCE())
			p := get(t, browser(), e.URL()+"/authorize?"+v.Encode())
			if p.Status != http.StatusBadRequest || p.Location != "" {
				t.Fatalf("status %d, Location %q", p.Status, p.Location)
			}
			if !strings.Contains(p.Body, "<h1>") || strings.Contains(p.Body, "<form") {
				t.Fatalf("not an error page: %s", p.Body)
			}
		})
	}
	// Duplicated parameters are refused too.
	v := e.authParams(clientID, cb, newPKCE())
	v.Add("redirect_uri", "https://evil.example/cb")
	if p := get(t, browser(), e.URL()+"/authorize?"+v.Encode()); p.Status != 400 || p.Location != "" {
		t.Errorf("duplicate redirect_uri: %d %q", p.Status, p.Location)
	}
}

func TestLoopbackRedirectPortMayVary(t *testing.T) {
	e := newEnv(t, nil)
	clientID := e.mustRegister("Native", "http://127.0.0.1:8000/cb")
	p := newPKCE()
	v := e.authParams(clientID, "http://127.0.0.1:53122/cb", p)
	page := get(t, browser(), e.URL()+"/authorize?"+v.Encode())
	if page.Status != 200 || !strings.Contains(page.Body, `type="password"`) {
		t.Fatalf("loopback with another port: %d %s", page.Status, page.Body)
	}
}

// TestAuthorizeErrorRedirects covers bad requests from a trusted client and
// redirect URI: the error goes back to the client with state and iss.
func TestAuthorizeErrorRedirects(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "http://127.0.0.1:9999/callback"
	clientID := e.mustRegister("App", cb)
	cases := []struct {
		name   string
		mutate func(url.Values)
		code   string
	}{
		{"missing resource", func(v url.Values) { v.Del("resource") }, "invalid_target"},
		{"foreign resource", func(v url.Values) { v.Set("resource", "https://evil.example/mcp") }, "invalid_target"},
		{"resource prefix", func(v url.Values) { v.Set("resource", e.Resource()+"/admin") }, "invalid_target"},
		{"no PKCE", func(v url.Values) { v.Del("code_challenge"); v.Del("code_challenge_method") }, "invalid_request"},
		{"plain PKCE", func(v url.Values) { v.Set("code_challenge_method", "plain") }, "invalid_request"},
		{"method omitted", func(v url.Values) { v.Del("code_challenge_method") }, "invalid_request"},
		{"short challenge", func(v url.Values) { v.Set("code_challenge", "abc") }, "invalid_request"},
		{"token response type", func(v url.Values) { v.Set("response_type", "token") }, "unsupported_response_type"},
		{"unknown scope only", func(v url.Values) { v.Set("scope", "admin") }, "invalid_scope"},
		{"duplicate state", func(v url.Values) { v.Add("state", "two") }, "invalid_request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := e.authParams(clientID, cb, newPKCE())
			tc.mutate(v)
			p := get(t, browser(), e.URL()+"/authorize?"+v.Encode())
			if p.Status != http.StatusFound {
				t.Fatalf("status %d: %s", p.Status, p.Body)
			}
			loc, _ := url.Parse(p.Location)
			q := loc.Query()
			if !strings.HasPrefix(p.Location, cb+"?") || q.Get("error") != tc.code || q.Get("iss") != e.URL() || q.Get("error_description") == "" {
				t.Fatalf("Location %s, want error=%s", p.Location, tc.code)
			}
			if tc.name != "duplicate state" && q.Get("state") != v.Get("state") {
				t.Errorf("state not echoed: %s", p.Location)
			}
		})
	}
	// A trailing-slash variant of the resource is the same resource.
	v := e.authParams(clientID, cb, newPKCE())
	v.Set("resource", e.Resource()+"/")
	if p := get(t, browser(), e.URL()+"/authorize?"+v.Encode()); p.Status != 200 {
		t.Errorf("resource with trailing slash: %d %s", p.Status, p.Location)
	}
}

func TestConsentCSRF(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "http://127.0.0.1:9999/callback"
	clientID := e.mustRegister("App", cb)

	victim := browser()
	consent := e.signIn(victim, e.authParams(clientID, cb, newPKCE()), "demo", "demo-pass")
	action, fields := formOf(t, consent)

	attacker := browser()
	attackerConsent := e.signIn(attacker, e.authParams(clientID, cb, newPKCE()), "alice", "alice-pass")
	_, attackerFields := formOf(t, attackerConsent)

	cases := []struct {
		name  string
		c     func() *http.Client
		token string
	}{
		{"missing token", func() *http.Client { return victim }, ""},
		{"wrong token", func() *http.Client { return victim }, "AAAA"},
		{"token of another session", func() *http.Client { return victim }, attackerFields.Get("csrf_token")},
		{"no session cookie", browser, fields.Get("csrf_token")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := url.Values{"request": {fields.Get("request")}, "action": {"allow"}}
			if tc.token != "" {
				v.Set("csrf_token", tc.token)
			}
			p := postForm(t, tc.c(), e.URL()+action, v)
			if p.Status != http.StatusForbidden || p.Location != "" {
				t.Fatalf("status %d, Location %q", p.Status, p.Location)
			}
		})
	}
	// The real form still works, once.
	loc := e.decide(victim, consent, "allow")
	if loc.Query().Get("code") == "" {
		t.Fatalf("redirect %s", loc)
	}
	to, f := formOf(t, consent)
	f.Set("action", "allow")
	if p := postForm(t, victim, e.URL()+to, f); p.Status != http.StatusBadRequest || p.Location != "" {
		t.Errorf("second submission: %d %q", p.Status, p.Location)
	}
}

func TestRegistration(t *testing.T) {
	e := newEnv(t, nil)
	cases := []struct {
		name string
		meta map[string]any
		code string
	}{
		{"javascript redirect", map[string]any{"redirect_uris": []string{"javascript:alert(1)"}}, "invalid_redirect_uri"},
		{"data redirect", map[string]any{"redirect_uris": []string{"data:text/html,hi"}}, "invalid_redirect_uri"},
		{"non-loopback http", map[string]any{"redirect_uris": []string{"http://app.example.com/cb"}}, "invalid_redirect_uri"},
		{"http private IP", map[string]any{"redirect_uris": []string{"http://192.168.1.5/cb"}}, "invalid_redirect_uri"},
		{"fragment", map[string]any{"redirect_uris": []string{"https://app.example.com/cb#x"}}, "invalid_redirect_uri"},
		{"custom scheme", map[string]any{"redirect_uris": []string{"com.example.app:/cb"}}, "invalid_redirect_uri"},
		{"relative", map[string]any{"redirect_uris": []string{"/cb"}}, "invalid_redirect_uri"},
		{"one good one bad", map[string]any{"redirect_uris": []string{"https://ok.example/cb", "http://bad.example/cb"}}, "invalid_redirect_uri"},
		{"no redirect", map[string]any{"client_name": "x"}, "invalid_redirect_uri"},
		{"private key auth", map[string]any{"redirect_uris": []string{"https://ok.example/cb"}, "token_endpoint_auth_method": "private_key_jwt"}, "invalid_client_metadata"},
		{"implicit", map[string]any{"redirect_uris": []string{"https://ok.example/cb"}, "response_types": []string{"token"}}, "invalid_client_metadata"},
		{"password grant", map[string]any{"redirect_uris": []string{"https://ok.example/cb"}, "grant_types": []string{"password"}}, "invalid_client_metadata"},
		{"long name", map[string]any{"redirect_uris": []string{"https://ok.example/cb"}, "client_name": strings.Repeat("x", 101)}, "invalid_client_metadata"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := e.register(tc.meta)
			var re oauthex.ClientRegistrationError
			json.Unmarshal(body, &re)
			if resp.StatusCode != 400 || re.ErrorCode != tc.code || re.ErrorDescription == "" {
				t.Fatalf("got %d %s", resp.StatusCode, body)
			}
		})
	}
	var n int
	e.db.QueryRow(`SELECT COUNT(*) FROM authserver_clients`).Scan(&n)
	if n != 0 {
		t.Errorf("%d clients stored after refused registrations", n)
	}

	// A good registration is a public client with defaults filled in.
	resp, body := e.register(map[string]any{"redirect_uris": []string{"http://localhost:3000/callback", "https://claude.ai/api/mcp/auth_callback"}, "client_name": "Claude"})
	var r oauthex.ClientRegistrationResponse
	json.Unmarshal(body, &r)
	if resp.StatusCode != 201 || r.ClientID == "" || r.ClientSecret != "" || r.TokenEndpointAuthMethod != "none" ||
		describe(r.GrantTypes) != describe([]string{"authorization_code", "refresh_token"}) || r.ClientIDIssuedAt.IsZero() {
		t.Fatalf("registration: %d %s", resp.StatusCode, body)
	}
	// A client asking for a secret becomes a public client without one.
	resp, body = e.register(map[string]any{"redirect_uris": []string{"https://ok.example/cb"}, "token_endpoint_auth_method": "client_secret_post"})
	r = oauthex.ClientRegistrationResponse{}
	json.Unmarshal(body, &r)
	if resp.StatusCode != 201 || r.TokenEndpointAuthMethod != "none" || r.ClientSecret != "" {
		t.Errorf("client_secret_post registration: %d %s", resp.StatusCode, body)
	}
	if resp, _ := e.register("not an object"); resp.StatusCode != 400 {
		t.Errorf("non-object body: %d", resp.StatusCode)
	}
}

func TestClientStorePruned(t *testing.T) {
	e := newEnv(t, &Options{MaxClients: 3})
	used, _ := e.login() // this client has obtained tokens
	var ids []string
	for i := range 5 {
		e.clock.Advance(time.Second)
		ids = append(ids, e.mustRegister(fmt.Sprintf("c%d", i), "https://app.example.com/cb"))
	}
	var n int
	e.db.QueryRow(`SELECT COUNT(*) FROM authserver_clients`).Scan(&n)
	if n != 3 {
		t.Fatalf("%d clients stored, want 3", n)
	}
	ctx := context.Background()
	for _, id := range []string{used, ids[3], ids[4]} {
		if _, err := e.srv.lookupClient(ctx, id); err != nil {
			t.Errorf("client %s pruned: %v", id, err)
		}
	}
	for _, id := range ids[:3] {
		if _, err := e.srv.lookupClient(ctx, id); !errors.Is(err, ErrUnknownClient) {
			t.Errorf("old unused client %s kept: %v", id, err)
		}
	}
}

// cimdHost serves client ID metadata documents over TLS on loopback.
type cimdHost struct {
	ts   *httptest.Server
	docs map[string]any
	hits atomic.Int32
}

func newCIMDHost(t *testing.T) *cimdHost {
	h := &cimdHost{docs: map[string]any{}}
	h.ts = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.hits.Add(1)
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, h.ts.URL+"/client.json", http.StatusFound)
			return
		case "/huge":
			w.Write([]byte(`{"client_id":"` + strings.Repeat("x", 20000) + `"}`))
			return
		}
		doc, ok := h.docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(doc)
	}))
	t.Cleanup(h.ts.Close)
	return h
}

func TestClientIDMetadataDocument(t *testing.T) {
	host := newCIMDHost(t)
	good := host.ts.URL + "/client.json"
	host.docs["/client.json"] = map[string]any{
		"client_id": good, "client_name": "Metadata Client",
		"redirect_uris": []string{"http://127.0.0.1:4000/cb"}, "token_endpoint_auth_method": "none",
	}
	host.docs["/wrong-id.json"] = map[string]any{"client_id": "https://other.example/client.json", "redirect_uris": []string{"http://127.0.0.1:4000/cb"}}
	host.docs["/bad-redirect.json"] = map[string]any{"client_id": host.ts.URL + "/bad-redirect.json", "redirect_uris": []string{"javascript:x"}}

	// The test host is on loopback, so the test injects its TLS client; the
	// default guarded client is exercised in TestCIMDRefusesSpecialAddresses.
	e := newEnv(t, &Options{HTTPClient: host.ts.Client()})

	p := newPKCE()
	code := e.authorize(good, "http://127.0.0.1:4000/cb", p)
	tok := e.exchange(good, code, "http://127.0.0.1:4000/cb", p)
	if tok.Status != 200 || verifyAccessToken(t, e, tok.AccessToken)["client_id"] != good {
		t.Fatalf("CIMD flow: %+v", tok)
	}
	hits := host.hits.Load()
	if r := e.refresh(good, tok.RefreshToken); r.Status != 200 {
		t.Fatalf("CIMD refresh: %+v", r)
	}
	if host.hits.Load() != hits {
		t.Error("document fetched again instead of cached")
	}

	cases := []struct{ name, clientID, redirect string }{
		{"redirect not listed", good, "http://127.0.0.1:4000/other"},
		{"client_id differs from URL", host.ts.URL + "/wrong-id.json", "http://127.0.0.1:4000/cb"},
		{"bad redirect in document", host.ts.URL + "/bad-redirect.json", "javascript:x"},
		{"not found", host.ts.URL + "/missing.json", "http://127.0.0.1:4000/cb"},
		{"redirect not followed", host.ts.URL + "/redirect", "http://127.0.0.1:4000/cb"},
		{"too large", host.ts.URL + "/huge", "http://127.0.0.1:4000/cb"},
		{"http URL", strings.Replace(good, "https:", "http:", 1), "http://127.0.0.1:4000/cb"},
		{"root URL", host.ts.URL + "/", "http://127.0.0.1:4000/cb"},
		{"fragment", good + "#x", "http://127.0.0.1:4000/cb"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := e.authParams(tc.clientID, tc.redirect, newPKCE())
			p := get(t, browser(), e.URL()+"/authorize?"+v.Encode())
			if p.Status != 400 || p.Location != "" {
				t.Fatalf("status %d, Location %q: %s", p.Status, p.Location, p.Body)
			}
		})
	}
}

func TestCIMDRefusesSpecialAddresses(t *testing.T) {
	// A real TLS server on 127.0.0.1: the guarded client must refuse to
	// connect even though something is listening.
	host := newCIMDHost(t)
	host.docs["/client.json"] = map[string]any{"client_id": host.ts.URL + "/client.json", "redirect_uris": []string{"http://127.0.0.1:4000/cb"}}
	port := host.ts.URL[strings.LastIndex(host.ts.URL, ":"):]

	e := newEnv(t, nil) // default guarded client
	for _, u := range []string{
		host.ts.URL + "/client.json",
		"https://localhost" + port + "/client.json",
		"https://[::1]" + port + "/client.json",
		"https://169.254.169.254/latest/meta-data.json",
		"https://10.0.0.1/client.json",
		"https://0.0.0.0" + port + "/client.json",
	} {
		t.Run(u, func(t *testing.T) {
			_, err := e.srv.cimd.resolve(context.Background(), u)
			if !errors.Is(err, ErrForbiddenAddress) || !errors.Is(err, ErrUnknownClient) {
				t.Fatalf("err = %v, want ErrForbiddenAddress", err)
			}
			v := e.authParams(u, "http://127.0.0.1:4000/cb", newPKCE())
			if p := get(t, browser(), e.URL()+"/authorize?"+v.Encode()); p.Status != 400 || p.Location != "" {
				t.Fatalf("authorize: %d %q", p.Status, p.Location)
			}
		})
	}
	if host.hits.Load() != 0 {
		t.Errorf("the loopback host was contacted %d times", host.hits.Load())
	}
}

func TestPublicAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"8.8.8.8": true, "1.1.1.1": true, "2606:4700:4700::1111": true,
		"127.0.0.1": false, "::1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.0.1": false,
		"169.254.169.254": false, "fe80::1": false, "fc00::1": false, "0.0.0.0": false, "::": false,
		"100.64.0.1": false, "224.0.0.1": false, "255.255.255.255": false, "::ffff:127.0.0.1": false,
		"::ffff:169.254.169.254": false, "64:ff9b::a9fe:a9fe": false, "2002:7f00:1::": false, "198.18.0.1": false,
	} {
		if got := PublicAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("PublicAddr(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestTokenEndpointRejectsGET(t *testing.T) {
	e := newEnv(t, nil)
	resp, err := http.Get(e.URL() + "/token?grant_type=authorization_code")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /token: %d", resp.StatusCode)
	}
}

// A client authenticating with HTTP Basic and an (ignored) secret can
// exchange its code: libraries configured for client_secret_basic work.
func TestBasicAuthClientExchanges(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "http://127.0.0.1:9999/callback"
	clientID := e.mustRegister("Basic", cb)
	p := newPKCE()
	code := e.authorize(clientID, cb, p)
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {cb}, "code_verifier": {p.Verifier}, "resource": {e.Resource()}}
	req, _ := http.NewRequest(http.MethodPost, e.URL()+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(clientID), "")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var r tokenReply
	json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	if resp.StatusCode != 200 || r.AccessToken == "" {
		t.Fatalf("status %d %+v", resp.StatusCode, r)
	}
}
