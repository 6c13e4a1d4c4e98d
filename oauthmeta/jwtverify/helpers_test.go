package jwtverify_test

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
	"github.com/brakinglab/codemode-go/oauthmeta/jwtverify"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

// clock is a settable time source for verifiers under test.
type clock struct{ offset atomic.Int64 }

func (c *clock) Now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) Advance(d time.Duration) { c.offset.Add(int64(d)) }
func newClock() *clock                   { return &clock{} }
func mustVerifier(t *testing.T, iss *oauthmetatest.Issuer, resource string, o *jwtverify.Options) *jwtverify.Verifier {
	t.Helper()
	v, err := jwtverify.New(iss.URL, resource, o)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// seen records what the protected handler observed.
type seen struct {
	calls     atomic.Int32
	principal atomic.Pointer[catalog.Principal]
	info      atomic.Pointer[auth.TokenInfo]
}

func (s *seen) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.calls.Add(1)
		if p, ok := catalog.PrincipalFrom(r.Context()); ok {
			s.principal.Store(&p)
		}
		s.info.Store(auth.TokenInfoFromContext(r.Context()))
		_, _ = io.WriteString(w, "ok")
	})
}

// protectedServer serves next behind RequireBearer on a loopback server and
// returns its URL.
func protectedServer(t *testing.T, v bearer.Verifier, opts *bearer.BearerOptions, next http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(bearer.RequireBearer(v, opts)(next))
	t.Cleanup(srv.Close)
	return srv.URL
}

type response struct {
	status    int
	challenge string
	body      string
	header    http.Header
}

func get(t *testing.T, url, authorization string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b), resp.Header}
}
