// Package pagetest is a user's browser on the approval page, for the
// tests of package approval, codemode and pgstate, which each used to
// carry a copy: a test sign-in ([CookieAuth], the "sid" cookie names the
// subject), a [Browser] signed in by that cookie that sends one request
// ([Browser.Do]) or answers a pending approval as a user does: open the
// link, read the form's CSRF token, press a button ([Browser.Answer],
// and [Browser.TryAnswer] off the test goroutine). pgstate's module may
// import it because Go allows an internal package to be imported from
// any path below its parent. [Limiter] counts the requests the page lets
// through per key, for tests of its rate limit.
//
// It imports only what the root module already requires.
package pagetest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
)

// Cookie is the name of the cookie that [CookieAuth] reads and a
// [Browser] sends.
const Cookie = "sid"

// CookieAuth is a test sign-in for approval.Page.Authenticate: the
// cookie [Cookie] names the subject; without it, or empty, the request
// is not signed in.
func CookieAuth(r *http.Request) (catalog.Principal, bool) {
	c, err := r.Cookie(Cookie)
	if err != nil || c.Value == "" {
		return catalog.Principal{}, false
	}
	return catalog.Principal{Subject: c.Value}, true
}

// csrfField finds the page form's CSRF token.
var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// CSRF returns the CSRF token of the form in page, or "" when page has
// none (a page that cannot be answered).
func CSRF(page string) string {
	if m := csrfField.FindStringSubmatch(page); m != nil {
		return m[1]
	}
	return ""
}

// Browser is a user's browser signed in as Subject ("" for none).
type Browser struct{ Subject string }

// Do sends one request: a form when form is not nil, with header's
// fields. It returns the response, whose body is read and closed, and
// the body. It fails tb if the request cannot be made.
func (b Browser) Do(tb testing.TB, method, link string, form url.Values, header map[string]string) (*http.Response, string) {
	tb.Helper()
	resp, body, err := b.do(method, link, form, header)
	if err != nil {
		tb.Fatal(err)
	}
	return resp, body
}

func (b Browser) do(method, link string, form url.Values, header map[string]string) (*http.Response, string, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, link, body)
	if err != nil {
		return nil, "", err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if b.Subject != "" {
		req.AddCookie(&http.Cookie{Name: Cookie, Value: b.Subject})
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", err
	}
	return resp, string(out), nil
}

// Answer opens link and presses the button action ("accept" or
// "decline"), and returns the page the answer led to. It fails tb unless
// both requests are answered 200 and the page has a form.
func (b Browser) Answer(tb testing.TB, link, action string) string {
	tb.Helper()
	page, err := b.answer(link, action)
	if err != nil {
		tb.Fatal(err)
	}
	return page
}

// TryAnswer is Answer for a goroutine other than the test's: it returns
// what went wrong instead of failing the test.
func (b Browser) TryAnswer(link, action string) error {
	_, err := b.answer(link, action)
	return err
}

func (b Browser) answer(link, action string) (string, error) {
	resp, page, err := b.do("GET", link, nil, nil)
	if err != nil {
		return "", err
	}
	token := CSRF(page)
	if resp.StatusCode != http.StatusOK || token == "" {
		return "", fmt.Errorf("GET %s: %d\n%s", link, resp.StatusCode, page)
	}
	resp, page, err = b.do("POST", link, url.Values{"csrf": {token}, "action": {action}}, nil)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("POST %s: %d\n%s", link, resp.StatusCode, page)
	}
	return page, nil
}

// Limiter is an approval.Limiter that lets each key make N requests and
// then refuses it, asking it to retry in 30 seconds.
type Limiter struct {
	N int

	mu   sync.Mutex
	seen map[string]int
}

// Take counts one request of key.
func (l *Limiter) Take(_ context.Context, key string, _ int) (time.Duration, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]int{}
	}
	l.seen[key]++
	if l.seen[key] > l.N {
		return 30 * time.Second, nil
	}
	return 0, nil
}

// Seen returns the number of requests each key has made.
func (l *Limiter) Seen() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]int, len(l.seen))
	for k, v := range l.seen {
		out[k] = v
	}
	return out
}
