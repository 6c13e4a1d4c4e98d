package authserver

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The sign-in page outside an OAuth flow: a page under /authorize/ that
// needs a signed-in user sends the browser there (SignInRedirect), the
// sign-in returns it to that page only, with a SameSite session cookie
// that SignedIn then reads. A wrong password, a cross-site post and a
// next that leaves /authorize/ change nothing.
func TestSignInPageReturnsToNext(t *testing.T) {
	const next = "/authorize/approve/abc"
	e := newEnvWith(t, t.TempDir()+"/db", nil, func(e *env, mux *http.ServeMux) {
		mux.HandleFunc("/authorize/approve/", func(w http.ResponseWriter, r *http.Request) {
			sub, ok := e.srv.SignedIn(r)
			if !ok {
				e.srv.SignInRedirect(w, r)
				return
			}
			fmt.Fprintf(w, "signed in as %s", sub)
		})
	})
	c := browser()
	p := get(t, c, e.URL()+next)
	if p.Status != http.StatusSeeOther || p.Location != "/authorize/login?next="+url.QueryEscape(next) {
		t.Fatalf("not signed in: %d %q", p.Status, p.Location)
	}
	p = get(t, c, e.URL()+p.Location)
	action, hidden := formOf(t, p)
	if p.Status != http.StatusOK || action != "/authorize/login" || hidden.Get("next") != next {
		t.Fatalf("sign-in page: %d %q %v", p.Status, action, hidden)
	}
	form := url.Values{"next": {next}, "username": {"demo"}, "password": {"wrong"}}
	if p = postForm(t, c, e.URL()+action, form); p.Status != http.StatusUnauthorized || !strings.Contains(p.Body, "Wrong username or password.") {
		t.Fatalf("wrong password: %d", p.Status)
	}
	form.Set("password", "demo-pass")
	req, _ := http.NewRequest(http.MethodPost, e.URL()+action, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://evil.example")
	if p = do(t, c, req); p.Status != http.StatusForbidden {
		t.Fatalf("cross-site sign-in: %d", p.Status)
	}
	for _, bad := range []string{"https://evil.example/authorize/x", "//evil.example/authorize/x", "/authorize/../mcp", "/elsewhere", "/authorize/x?y=1", `/authorize/\evil`} {
		f := url.Values{"next": {bad}, "username": {"demo"}, "password": {"demo-pass"}}
		if p = postForm(t, c, e.URL()+action, f); p.Status != http.StatusBadRequest {
			t.Errorf("next %q: %d %q", bad, p.Status, p.Location)
		}
	}
	if p = get(t, c, e.URL()+next); p.Status != http.StatusSeeOther {
		t.Fatalf("signed in by a refused post: %d", p.Status)
	}
	resp, err := c.PostForm(e.URL()+action, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != next {
		t.Fatalf("sign-in: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == sessionCookieName {
			cookie = ck
		}
	}
	if cookie == nil || cookie.SameSite != http.SameSiteLaxMode || !cookie.HttpOnly || cookie.Path != "/authorize" {
		t.Fatalf("session cookie %+v", cookie)
	}
	if p = get(t, c, e.URL()+next); p.Status != http.StatusOK || p.Body != "signed in as user-demo" {
		t.Fatalf("after sign-in: %d %q", p.Status, p.Body)
	}
}
