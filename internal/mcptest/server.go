package mcptest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

// Server is a codemode server on a loopback port whose clients
// authenticate with access tokens of a test issuer.
type Server struct {
	*codemode.Server
	Issuer *oauthmetatest.Issuer
	// Base is the server's origin, "http://127.0.0.1:port".
	Base string
	// URL is the MCP endpoint, Base+"/mcp", and the tokens' audience
	// (Options.Auth.Resource).
	URL string
	// HTTP is the loopback server; a test may close it early, to end
	// every connection.
	HTTP *httptest.Server
}

// StartHTTP serves cat on a loopback port, closed when tb ends. The
// options it passes to codemode.New are Version "1.0.0" and Auth
// verifying the issuer's tokens for URL, then what configure (which may
// be nil) sets; configure may replace anything, the verifier included.
// Then an approval page without a URL gets Base+"/approve/", where
// Server.ApprovalHandler is mounted beside the MCP endpoint, and a
// server without a sandbox gets one of two workers ([WithPool]).
func StartHTTP(tb testing.TB, cat *catalog.Catalog, configure func(*Server, *codemode.Options)) *Server {
	tb.Helper()
	hs := httptest.NewUnstartedServer(nil)
	s := &Server{Issuer: oauthmetatest.NewIssuer(tb, nil), Base: "http://" + hs.Listener.Addr().String(), HTTP: hs}
	s.URL = s.Base + "/mcp"
	opts := &codemode.Options{
		Version: "1.0.0",
		Auth:    &codemode.Auth{Verifier: s.Issuer.Verifier(s.URL), Resource: s.URL, AuthorizationServers: []string{s.Issuer.URL}},
	}
	if configure != nil {
		configure(s, opts)
	}
	if pg := opts.Approvals.Page; pg != nil && pg.URL == "" {
		pg.URL = s.Base + "/approve/"
	}
	if opts.Sandbox.Shared == nil {
		WithPool(tb, opts, 2)
	}
	var err error
	if s.Server, err = codemode.New(cat, opts); err != nil {
		hs.Listener.Close()
		tb.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", s.Handler())
	mux.Handle("/approve/", s.ApprovalHandler())
	hs.Config.Handler = mux
	hs.Start()
	tb.Cleanup(func() {
		hs.Close()
		if err := s.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return s
}

// Token mints an access token of the issuer for sub, with scopes, whose
// audience is the server.
func (s *Server) Token(sub string, scopes ...string) string {
	return s.Issuer.Mint(s.URL, oauthmetatest.WithClaim("sub", sub), oauthmetatest.WithScope(strings.Join(scopes, " ")))
}
