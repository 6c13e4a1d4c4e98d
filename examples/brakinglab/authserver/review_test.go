package authserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// wrongPasswords opens one authorization request and submits n wrong
// passwords for user on it; it returns the last page.
func (e *env) wrongPasswords(clientID, cb, user string, n int) page {
	e.t.Helper()
	c := browser()
	p := get(e.t, c, e.URL()+"/authorize?"+e.authParams(clientID, cb, newPKCE()).Encode())
	action, fields := formOf(e.t, p)
	for range n {
		fields.Set("username", user)
		fields.Set("password", "guess-"+time.Now().String())
		p = postForm(e.t, c, e.URL()+action, fields)
	}
	return p
}

// TestPasswordGuessesLimitedPerAccount: the per-request limit of five wrong
// passwords must not reset when an attacker simply opens a new
// authorization request; guesses are counted per account.
func TestPasswordGuessesLimitedPerAccount(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "https://app.example.com/callback"
	clientID := e.mustRegister("App", cb)
	for range 4 {
		e.wrongPasswords(clientID, cb, "demo", maxSignInFailures)
	}
	// 20 guesses later, even the right password is refused for a while...
	c := browser()
	p := get(t, c, e.URL()+"/authorize?"+e.authParams(clientID, cb, newPKCE()).Encode())
	action, fields := formOf(t, p)
	fields.Set("username", "DEMO ")
	fields.Set("password", "demo-pass")
	p = postForm(t, c, e.URL()+action, fields)
	if p.Status != http.StatusTooManyRequests || !strings.Contains(p.Body, "Too many") {
		t.Fatalf("sign-in after %d wrong passwords: status %d, want 429: %.400s", 4*maxSignInFailures, p.Status, p.Body)
	}
	// ...while another account is unaffected...
	e.signIn(browser(), e.authParams(clientID, cb, newPKCE()), "alice", "alice-pass")
	// ...and once the window has passed the account can sign in again.
	e.clock.Advance(accountLockWindow + time.Second)
	e.signIn(browser(), e.authParams(clientID, cb, newPKCE()), "demo", "demo-pass")
}

// TestPendingFloodDoesNotBlockSignIn: anyone can open authorization
// requests (registration is open); filling the pending table must not
// refuse every later sign-in for the requests' whole lifetime.
func TestPendingFloodDoesNotBlockSignIn(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "https://app.example.com/callback"
	clientID := e.mustRegister("App", cb)
	q := "/authorize?" + e.authParams(clientID, cb, newPKCE()).Encode()
	for i := range maxInMemory + 10 {
		w := httptest.NewRecorder()
		e.srv.ServeHTTP(w, httptest.NewRequest(http.MethodGet, q, nil))
		if w.Code != http.StatusOK && i < maxInMemory {
			t.Fatalf("request %d: %d", i, w.Code)
		}
	}
	consent := e.signIn(browser(), e.authParams(clientID, cb, newPKCE()), "demo", "demo-pass")
	if !strings.Contains(consent.Body, "App") {
		t.Fatalf("consent page: %s", consent.Body)
	}
	if n := len(e.srv.pending); n > maxInMemory {
		t.Fatalf("%d pending requests kept, cap %d", n, maxInMemory)
	}
}

