package authserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Two concurrent uses of one refresh token: one wins, the other counts as
// reuse and revokes the family, whichever order the database sees them in.
func TestConcurrentRefreshOneWinner(t *testing.T) {
	e := newEnv(t, nil)
	clientID, tok := e.login()
	const n = 4
	results := make([]tokenReply, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results[i] = e.refresh(clientID, tok.RefreshToken) })
	}
	wg.Wait()
	ok := 0
	for _, r := range results {
		switch {
		case r.Status == http.StatusOK:
			ok++
		case r.Error != "invalid_grant":
			t.Errorf("unexpected response %+v", r)
		}
	}
	if ok > 1 {
		t.Fatalf("%d concurrent refreshes succeeded with one token", ok)
	}
	var revoked int
	e.db.QueryRow(`SELECT COUNT(revoked_at) FROM authserver_refresh_families`).Scan(&revoked)
	if revoked != 1 {
		t.Errorf("family not revoked after concurrent reuse")
	}
}

func TestSessionCookieAttributes(t *testing.T) {
	for _, issuer := range []string{"http://127.0.0.1:8080", "https://lab.example.com"} {
		db := openDB(t, t.TempDir()+"/c.db")
		s, err := New(db, demoUsers, &Options{Issuer: issuer, Resource: issuer + "/mcp"})
		if err != nil {
			t.Fatal(err)
		}
		const b = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		id, _ := s.putPending(context.Background(), &pendingRequest{client: &client{ID: "x"}, expires: s.now().Add(pendingTTL), browser: b})
		req := httptest.NewRequest(http.MethodPost, issuer+"/authorize/signin",
			strings.NewReader(url.Values{"request": {id}, "username": {"demo"}, "password": {"demo-pass"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(&http.Cookie{Name: browserCookieName, Value: b})
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		cookies := rec.Result().Cookies()
		if rec.Code != http.StatusSeeOther || len(cookies) != 1 {
			t.Fatalf("%s: status %d, cookies %v", issuer, rec.Code, cookies)
		}
		c := cookies[0]
		if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/authorize" || c.Secure != strings.HasPrefix(issuer, "https") {
			t.Errorf("%s: cookie %+v", issuer, c)
		}
	}
}

func TestSignInAttemptsLimited(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "http://127.0.0.1:9999/callback"
	clientID := e.mustRegister("App", cb)
	c := browser()
	first := get(t, c, e.URL()+"/authorize?"+e.authParams(clientID, cb, newPKCE()).Encode())
	action, fields := formOf(t, first)
	fields.Set("username", "demo")
	for i := 1; i <= maxSignInFailures; i++ {
		fields.Set("password", "guess")
		p := postForm(t, c, e.URL()+action, fields)
		want := http.StatusUnauthorized
		if i == maxSignInFailures {
			want = http.StatusTooManyRequests
		}
		if p.Status != want {
			t.Fatalf("attempt %d: status %d", i, p.Status)
		}
	}
	// The request is gone: even the right password needs a fresh start.
	fields.Set("password", "demo-pass")
	if p := postForm(t, c, e.URL()+action, fields); p.Status != http.StatusBadRequest || p.Location != "" {
		t.Fatalf("after the limit: %d %q", p.Status, p.Location)
	}
}

func TestClientNameIsEscaped(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "http://127.0.0.1:9999/callback"
	clientID := e.mustRegister(`<script>alert("x")</script>`, cb)
	c := browser()
	consent := e.signIn(c, e.authParams(clientID, cb, newPKCE()), "demo", "demo-pass")
	if strings.Contains(consent.Body, "<script>") || !strings.Contains(consent.Body, "&lt;script&gt;") {
		t.Fatalf("client name not escaped: %s", consent.Body)
	}
	if csp := consent.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP %q", csp)
	}
}

// Browser-based clients call registration and token endpoints cross-origin.
func TestCORSPreflight(t *testing.T) {
	e := newEnv(t, nil)
	for _, p := range []string{"/register", "/token", "/jwks", "/.well-known/oauth-authorization-server"} {
		req, _ := http.NewRequest(http.MethodOptions, e.URL()+p, nil)
		req.Header.Set("Origin", "http://localhost:6274")
		req.Header.Set("Access-Control-Request-Method", "POST")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s preflight: %d %v", p, resp.StatusCode, resp.Header)
		}
	}
	// The cookie-authenticated pages get no CORS headers.
	resp, err := http.Get(e.URL() + "/authorize")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("authorize page allows cross-origin reads")
	}
}

// Form posts whose Origin is another site are refused before anything else.
func TestCrossOriginFormPostRefused(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "http://127.0.0.1:9999/callback"
	clientID := e.mustRegister("App", cb)
	c := browser()
	consent := e.signIn(c, e.authParams(clientID, cb, newPKCE()), "demo", "demo-pass")
	action, fields := formOf(t, consent)
	fields.Set("action", "allow")
	for _, origin := range []string{"https://evil.example", "null"} {
		req, _ := http.NewRequest(http.MethodPost, e.URL()+action, strings.NewReader(fields.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		if p := do(t, c, req); p.Status != http.StatusForbidden || p.Location != "" {
			t.Errorf("Origin %s: %d %q", origin, p.Status, p.Location)
		}
	}
	// The same post from the server's own origin goes through.
	req, _ := http.NewRequest(http.MethodPost, e.URL()+action, strings.NewReader(fields.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", e.URL())
	if p := do(t, c, req); p.Status != http.StatusSeeOther || !strings.Contains(p.Location, "code=") {
		t.Errorf("same origin: %d %q", p.Status, p.Location)
	}
}

// Pending sign-ins and browser sessions expire.
func TestPendingAndSessionExpiry(t *testing.T) {
	e := newEnv(t, &Options{SessionTTL: time.Hour})
	const cb = "http://127.0.0.1:9999/callback"
	clientID := e.mustRegister("App", cb)
	c := browser()

	first := get(t, c, e.URL()+"/authorize?"+e.authParams(clientID, cb, newPKCE()).Encode())
	action, fields := formOf(t, first)
	e.clock.Advance(pendingTTL + time.Second)
	fields.Set("username", "demo")
	fields.Set("password", "demo-pass")
	if p := postForm(t, c, e.URL()+action, fields); p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "expired") {
		t.Fatalf("expired request: %d %s", p.Status, p.Body)
	}

	e.signIn(c, e.authParams(clientID, cb, newPKCE()), "demo", "demo-pass")
	e.clock.Advance(2 * time.Hour)
	p := get(t, c, e.URL()+"/authorize?"+e.authParams(clientID, cb, newPKCE()).Encode())
	if !strings.Contains(p.Body, `type="password"`) {
		t.Fatalf("expired session still signed in: %s", p.Body)
	}
}
