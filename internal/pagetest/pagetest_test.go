package pagetest_test

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/internal/pagetest"
)

// page is a stand-in for the approval page: signed in by CookieAuth, it
// shows a form with a CSRF token and records the answer posted with it.
type page struct {
	mu      sync.Mutex
	answers []string
}

func (p *page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	who, ok := pagetest.CookieAuth(r)
	if !ok {
		http.Error(w, "sign in", http.StatusUnauthorized)
		return
	}
	if r.Method == http.MethodPost {
		if r.FormValue("csrf") != "tok-"+who.Subject {
			http.Error(w, "bad csrf", http.StatusForbidden)
			return
		}
		p.mu.Lock()
		p.answers = append(p.answers, who.Subject+" "+r.FormValue("action")+" "+r.Header.Get("Content-Type"))
		p.mu.Unlock()
		fmt.Fprintf(w, "You answered %s.", html.EscapeString(r.FormValue("action")))
		return
	}
	fmt.Fprintf(w, `<form method="post"><input type="hidden" name="csrf" value="tok-%s"></form>`, html.EscapeString(who.Subject))
}

func TestAnswer(t *testing.T) {
	p := &page{}
	srv := httptest.NewServer(p)
	defer srv.Close()

	alice := pagetest.Browser{Subject: "alice"}
	if got := alice.Answer(t, srv.URL, "accept"); got != "You answered accept." {
		t.Fatalf("page after the answer: %q", got)
	}
	done := make(chan error)
	go func() { done <- pagetest.Browser{Subject: "bob"}.TryAnswer(srv.URL, "decline") }()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Not signed in: the GET is refused, so nothing is posted.
	if err := (pagetest.Browser{}).TryAnswer(srv.URL, "accept"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("anonymous answer: %v", err)
	}
	want := []string{"alice accept application/x-www-form-urlencoded", "bob decline application/x-www-form-urlencoded"}
	if strings.Join(p.answers, "|") != strings.Join(want, "|") {
		t.Fatalf("answers %q, want %q", p.answers, want)
	}
	resp, body := alice.Do(t, "GET", srv.URL, nil, map[string]string{"X-Test": "1"})
	if resp.StatusCode != http.StatusOK || pagetest.CSRF(body) != "tok-alice" {
		t.Fatalf("GET: %d %q", resp.StatusCode, body)
	}
	if pagetest.CSRF("<p>no form</p>") != "" {
		t.Fatal("a token in a page without a form")
	}
}

func TestLimiter(t *testing.T) {
	l := &pagetest.Limiter{N: 2}
	var got []time.Duration
	for range 3 {
		d, err := l.Take(t.Context(), "a", 1)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d)
	}
	if d, _ := l.Take(t.Context(), "b", 1); d != 0 {
		t.Fatalf("another key refused: %v", d)
	}
	if got[0] != 0 || got[1] != 0 || got[2] != 30*time.Second {
		t.Fatalf("waits %v", got)
	}
	if s := l.Seen(); s["a"] != 3 || s["b"] != 1 || len(s) != 2 {
		t.Fatalf("seen %v", s)
	}
}
