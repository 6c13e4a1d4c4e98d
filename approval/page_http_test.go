package approval

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/internal/pagetest"
)

// The approval page's HTTP handler on its own: a pending approval put in
// the store as an execution would, served on a loopback server, and
// answered or refused by a browser.

// pageServer is a Service with a page, served at base.
type pageServer struct {
	s    *Service
	base string // the page URL: base + id is a link
}

// startPageServer serves a Service whose page options configure edits,
// with garage.deleteLap needing approval.
func startPageServer(t *testing.T, configure func(*Page)) *pageServer {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	base := "http://" + ts.Listener.Addr().String() + "/approve/"
	p := &Page{URL: base, Authenticate: pagetest.CookieAuth}
	if configure != nil {
		configure(p)
	}
	s, err := New(Options{Tiers: []catalog.Tier{catalog.Mutating}, Page: p}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	pol := s.Policy([]Func{{Name: "garage.deleteLap", Tier: catalog.Mutating}})
	mux := http.NewServeMux()
	mux.Handle("/approve/", s.Handler(func() *Policy { return pol }))
	ts.Config.Handler = mux
	ts.Start()
	t.Cleanup(ts.Close)
	return &pageServer{s: s, base: base}
}

// put stores a pending approval of sub asking to delete lap 3, after a
// write that created note 12, expiring at expires; it returns its link.
func (ps *pageServer) put(t *testing.T, sub, id string, expires time.Time) string {
	t.Helper()
	st := approvalState{V: approvalStateVersion, ID: id, Subject: sub, Tool: "execute_code", Code: "c0de",
		Calls:      []approvedCall{{Fn: "garage.deleteLap", Args: json.RawMessage(`{"number":3}`)}},
		ClientName: "Garage Assistant",
		approvalExec: approvalExec{Record: []recordedCall{
			{Fn: "garage.addNote", Args: json.RawMessage(`{"text":"worn"}`), Out: json.RawMessage(`{"id":12}`), Write: true},
		}}}
	b, err := json.Marshal(&st)
	if err != nil {
		t.Fatal(err)
	}
	p := state.PendingApproval{ID: id, Match: pageMatch(&st), Subject: sub, Created: time.Now(), Expires: expires, State: b}
	if err := ps.s.page.store.Put(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return ps.base + id
}

// answer returns the stored answer of id.
func (ps *pageServer) answer(t *testing.T, id string) string {
	t.Helper()
	p, err := ps.s.page.store.Get(context.Background(), id)
	if err != nil || p == nil {
		t.Fatalf("get %s: %v, %v", id, p, err)
	}
	return p.Answer
}

// do sends one browser request, signed in as sub unless it is empty.
func do(t *testing.T, sub, method, link string, form url.Values, header map[string]string) (*http.Response, string) {
	t.Helper()
	return pagetest.Browser{Subject: sub}.Do(t, method, link, form, header)
}

const (
	idA = "AAAAAAAAAAAAAAAAAAAAAA"
	idB = "BBBBBBBBBBBBBBBBBBBBBB"
)

// The owner sees the calls, their tier and arguments and the writes
// made, in a page that cannot be framed or cached; answering accepts
// once, wakes a call waiting on it, and a second answer changes nothing.
func TestPageShowAndAnswer(t *testing.T) {
	ps := startPageServer(t, nil)
	link := ps.put(t, "alice", idA, time.Now().Add(time.Minute))
	resp, page := do(t, "alice", "GET", link, nil, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d\n%s", resp.StatusCode, page)
	}
	for _, want := range []string{"Garage Assistant asks to make 1 change in garage", "garage.deleteLap", "MUTATING", "number: 3", `garage.addNote({&#34;text&#34;:&#34;worn&#34;}) → id 12`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	for k, want := range map[string]string{"X-Frame-Options": "DENY", "Cache-Control": "no-store", "Referrer-Policy": "same-origin"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	token := pagetest.CSRF(page)
	if token == "" {
		t.Fatalf("no answer token:\n%s", page)
	}

	woken, release := ps.s.page.waiters.wait(idA)
	defer release()
	resp, page = do(t, "alice", "POST", link, url.Values{"csrf": {token}, "action": {"accept"}}, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Accepted.") {
		t.Fatalf("accept: %d\n%s", resp.StatusCode, page)
	}
	select {
	case <-woken:
	default:
		t.Fatal("the answer did not wake the waiting call")
	}
	if got := ps.answer(t, idA); got != "accept" {
		t.Fatalf("stored answer %q", got)
	}
	resp, page = do(t, "alice", "POST", link, url.Values{"csrf": {token}, "action": {"decline"}}, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "You accepted this request.") || ps.answer(t, idA) != "accept" {
		t.Fatalf("second answer: %d, stored %q\n%s", resp.StatusCode, ps.answer(t, idA), page)
	}
}

// Another user's approval, a missing one and a malformed id get the same
// 404; a signed-out browser is sent to sign in; answers that did not come
// from the page itself are refused and change nothing.
func TestPageRefusals(t *testing.T) {
	ps := startPageServer(t, nil)
	link := ps.put(t, "alice", idA, time.Now().Add(time.Minute))
	r1, other := do(t, "bob", "GET", link, nil, nil)
	r2, missing := do(t, "alice", "GET", ps.base+idB, nil, nil)
	r3, malformed := do(t, "alice", "GET", ps.base+"x", nil, nil)
	if r1.StatusCode != http.StatusNotFound || r2.StatusCode != r1.StatusCode || r3.StatusCode != r1.StatusCode || other != missing || missing != malformed {
		t.Fatalf("another user's link (%d) and a missing (%d) or malformed one (%d) differ:\n%s\n---\n%s\n---\n%s", r1.StatusCode, r2.StatusCode, r3.StatusCode, other, missing, malformed)
	}
	if r, _ := do(t, "", "GET", link, nil, nil); r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("signed out: %d", r.StatusCode)
	}
	_, page := do(t, "alice", "GET", link, nil, nil)
	token := pagetest.CSRF(page)
	accept := url.Values{"csrf": {token}, "action": {"accept"}}
	if r, _ := do(t, "bob", "POST", link, accept, nil); r.StatusCode != http.StatusNotFound {
		t.Errorf("bob's POST: %d, want 404", r.StatusCode)
	}
	for name, h := range map[string]map[string]string{
		"origin":     {"Origin": "http://evil.example"},
		"fetch-site": {"Sec-Fetch-Site": "cross-site"},
	} {
		if r, _ := do(t, "alice", "POST", link, accept, h); r.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", name, r.StatusCode)
		}
	}
	if r, _ := do(t, "alice", "POST", link, url.Values{"csrf": {"forged"}, "action": {"accept"}}, nil); r.StatusCode != http.StatusForbidden {
		t.Errorf("forged token: %d, want 403", r.StatusCode)
	}
	if r, _ := do(t, "alice", "POST", link, url.Values{"csrf": {token}, "action": {"maybe"}}, nil); r.StatusCode != http.StatusForbidden {
		t.Errorf("unknown action: %d, want 403", r.StatusCode)
	}
	if r, _ := do(t, "alice", "PUT", link, nil, nil); r.StatusCode != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET, HEAD, POST" {
		t.Errorf("PUT: %d, Allow %q", r.StatusCode, r.Header.Get("Allow"))
	}
	if got := ps.answer(t, idA); got != "" {
		t.Fatalf("a refused answer was stored: %q", got)
	}
}

// Page.SignIn answers a signed-out browser instead of the default 401.
func TestPageSignIn(t *testing.T) {
	ps := startPageServer(t, func(p *Page) {
		p.SignIn = func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.Path), http.StatusFound)
		}
	})
	link := ps.put(t, "alice", idA, time.Now().Add(time.Minute))
	req, _ := http.NewRequest("GET", link, nil)
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/login?next=%2Fapprove%2F"+idA {
		t.Fatalf("signed out: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// An approval whose link expired unanswered is shown as expired (410)
// and can no longer be answered.
func TestPageExpired(t *testing.T) {
	ps := startPageServer(t, nil)
	var skew atomic.Int64
	ps.s.SetClock(func() time.Time { return time.Now().Add(time.Duration(skew.Load())) })
	link := ps.put(t, "alice", idA, time.Now().Add(time.Minute))
	_, page := do(t, "alice", "GET", link, nil, nil)
	token := pagetest.CSRF(page)
	skew.Store(int64(2 * time.Minute))
	resp, page := do(t, "alice", "GET", link, nil, nil)
	if resp.StatusCode != http.StatusGone || !strings.Contains(page, "expired") || pagetest.CSRF(page) != "" {
		t.Fatalf("expired: %d\n%s", resp.StatusCode, page)
	}
	if resp, _ = do(t, "alice", "POST", link, url.Values{"csrf": {token}, "action": {"accept"}}, nil); resp.StatusCode != http.StatusGone {
		t.Fatalf("answer after expiry: %d, want 410", resp.StatusCode)
	}
	if got := ps.answer(t, idA); got != "" {
		t.Fatalf("stored answer %q", got)
	}
}

// Requests are limited per source (Page.SourceOf) before the user is
// authenticated or the id looked up.
func TestPageRateLimit(t *testing.T) {
	lim := &pagetest.Limiter{N: 3}
	ps := startPageServer(t, func(p *Page) {
		p.Limiter = lim
		p.SourceOf = func(r *http.Request) string { return r.Header.Get("X-Test-Source") }
	})
	for _, src := range []string{"a", "b"} {
		var got []int
		for range 5 {
			resp, _ := do(t, "", "GET", ps.base+idA, nil, map[string]string{"X-Test-Source": src})
			got = append(got, resp.StatusCode)
			if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") != "30" {
				t.Fatalf("Retry-After %q", resp.Header.Get("Retry-After"))
			}
		}
		if want := []int{401, 401, 401, 429, 429}; !slices.Equal(got, want) {
			t.Fatalf("source %s: statuses %v, want %v", src, got, want)
		}
	}
	if lim.Seen()["approval-page:a"] != 5 {
		t.Fatalf("limiter keys %v", lim.Seen())
	}
}

// Without a page every request gets 404.
func TestPageNone(t *testing.T) {
	s, err := New(Options{}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler(func() *Policy { return nil }))
	defer ts.Close()
	resp, _ := do(t, "alice", "GET", ts.URL+"/approve/"+idA, nil, nil)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
}
