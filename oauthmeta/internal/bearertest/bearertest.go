// Package bearertest holds the test helpers that package bearer's and
// module jwtverify's tests share, which each used to carry a copy of: a
// settable [Clock] for verifiers, a protected handler that records what
// it [Seen], a loopback server behind bearer.RequireBearer ([Serve]) and
// a GET that reads the challenge ([Get]). jwtverify's module may import
// it because Go allows an internal package to be imported from any path
// below its parent, here github.com/brakinglab/codemode-go/oauthmeta/.
//
// It imports only what the root module already requires.
package bearertest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
)

// Clock is a settable time source for verifiers under test: the real
// time plus what Advance added. The zero value reads the real time.
type Clock struct{ offset atomic.Int64 }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// Advance moves the clock d forward.
func (c *Clock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// Seen records what the protected handler observed. The zero value is
// ready to use.
type Seen struct {
	// Calls counts the requests that reached the handler.
	Calls atomic.Int32
	// Principal is the last request's catalog principal, if it had one.
	Principal atomic.Pointer[catalog.Principal]
	// Info is the last request's go-sdk token info.
	Info atomic.Pointer[auth.TokenInfo]
}

// Handler returns a handler that records each request in s and answers
// "ok".
func (s *Seen) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Calls.Add(1)
		if p, ok := catalog.PrincipalFrom(r.Context()); ok {
			s.Principal.Store(&p)
		}
		s.Info.Store(auth.TokenInfoFromContext(r.Context()))
		_, _ = io.WriteString(w, "ok")
	})
}

// Serve serves next behind bearer.RequireBearer(v, opts) on a loopback
// server, closed when tb ends, and returns its URL.
func Serve(tb testing.TB, v bearer.Verifier, opts *bearer.BearerOptions, next http.Handler) string {
	tb.Helper()
	srv := httptest.NewServer(bearer.RequireBearer(v, opts)(next))
	tb.Cleanup(srv.Close)
	return srv.URL
}

// Response is what [Get] read.
type Response struct {
	Status    int
	Challenge string // the WWW-Authenticate header
	Body      string
	Header    http.Header
}

// Get sends GET url with the Authorization header authorization (none
// when empty) and reads the response. It fails tb if the request fails.
func Get(tb testing.TB, url, authorization string) Response {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return Response{resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b), resp.Header}
}
