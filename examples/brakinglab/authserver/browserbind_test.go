package authserver

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// A pending sign-in request belongs to the browser that opened it: someone
// who learned its ID cannot sign in to it or consent to it with their own
// account.
func TestPendingRequestBoundToBrowser(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "http://127.0.0.1:9999/callback"
	clientID := e.mustRegister("App", cb)

	victim := browser()
	params := e.authParams(clientID, cb, newPKCE())
	first := get(t, victim, e.URL()+"/authorize?"+params.Encode())
	signInAction, victimFields := formOf(t, first)
	victimID := victimFields.Get("request")

	// The attacker has a session of their own from another sign-in.
	attacker := browser()
	attackerConsent := e.signIn(attacker, e.authParams(clientID, cb, newPKCE()), "alice", "alice-pass")
	consentAction, _ := formOf(t, attackerConsent)
	u, _ := url.Parse(e.URL() + "/authorize")
	var attackerSID string
	for _, c := range attacker.Jar.Cookies(u) {
		if c.Name == sessionCookieName {
			attackerSID = c.Value
		}
	}
	if attackerSID == "" {
		t.Fatal("attacker has no session cookie")
	}

	refused := func(name string, p page) {
		t.Helper()
		if p.Status != http.StatusForbidden || p.Location != "" || !strings.Contains(p.Body, "another browser") {
			t.Errorf("%s: status %d, Location %q, body %q", name, p.Status, p.Location, p.Body)
		}
	}
	stranger := browser() // no cookies at all
	refused("sign-in without the browser cookie", postForm(t, stranger, e.URL()+signInAction,
		url.Values{"request": {victimID}, "username": {"alice"}, "password": {"alice-pass"}}))
	refused("sign-in from the attacker's browser", postForm(t, attacker, e.URL()+signInAction,
		url.Values{"request": {victimID}, "username": {"alice"}, "password": {"alice-pass"}}))
	refused("consent page in the attacker's browser", get(t, attacker, e.URL()+consentAction+"?request="+url.QueryEscape(victimID)))
	refused("consent from the attacker's browser", postForm(t, attacker, e.URL()+consentAction, url.Values{
		"request": {victimID}, "action": {"allow"}, "csrf_token": {e.srv.csrfToken(attackerSID, victimID)},
	}))

	// The victim's own browser still completes the request.
	victimFields.Set("username", "demo")
	victimFields.Set("password", "demo-pass")
	p := postForm(t, victim, e.URL()+signInAction, victimFields)
	if p.Status != http.StatusSeeOther {
		t.Fatalf("victim sign-in: status %d: %s", p.Status, p.Body)
	}
	loc := e.decide(victim, get(t, victim, e.URL()+p.Location), "allow")
	if loc.Query().Get("code") == "" || loc.Query().Get("state") != params.Get("state") {
		t.Fatalf("victim redirect %s", loc)
	}
}

// Two sign-ins started in two tabs of one browser both work.
func TestBrowserCookieSharedByTabs(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "http://127.0.0.1:9999/callback"
	clientID := e.mustRegister("App", cb)
	c := browser()
	tab1 := get(t, c, e.URL()+"/authorize?"+e.authParams(clientID, cb, newPKCE()).Encode())
	tab2 := get(t, c, e.URL()+"/authorize?"+e.authParams(clientID, cb, newPKCE()).Encode())
	for i, tab := range []page{tab1, tab2} {
		action, f := formOf(t, tab)
		f.Set("username", "demo")
		f.Set("password", "demo-pass")
		if p := postForm(t, c, e.URL()+action, f); p.Status != http.StatusSeeOther {
			t.Errorf("tab %d: status %d: %s", i+1, p.Status, p.Body)
		}
	}
}
