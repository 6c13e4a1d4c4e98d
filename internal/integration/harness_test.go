package integration_test

// The parts of codemode's test harness (codemode/harness_test.go,
// catalog_test.go, progress_test.go) these tests use, for a server built
// from the public API only.

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/oauthmeta/jwtverify"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
	"github.com/brakinglab/codemode-go/sandbox"
)

// testServer is a codemode server on a loopback port with a test issuer.
type testServer struct {
	*codemode.Server
	issuer   *oauthmetatest.Issuer
	URL      string // the MCP endpoint
	Resource string
}

// startServerFor starts a server over cat with authentication by a test
// issuer and a sandbox of two workers; configure may adjust the options
// before New.
func startServerFor(t *testing.T, cat *catalog.Catalog, configure func(*codemode.Options)) *testServer {
	t.Helper()
	ts := &testServer{issuer: oauthmetatest.NewIssuer(t, nil)}
	hs := httptest.NewUnstartedServer(nil)
	ts.URL = "http://" + hs.Listener.Addr().String() + "/mcp"
	ts.Resource = ts.URL
	v, err := jwtverify.New(ts.issuer.URL, ts.Resource, &jwtverify.Options{JWKSURL: ts.issuer.JWKSURL})
	if err != nil {
		t.Fatal(err)
	}
	opts := &codemode.Options{
		Version: "1.0.0",
		Auth:    &codemode.Auth{Verifier: v, Resource: ts.Resource, AuthorizationServers: []string{ts.issuer.URL}},
	}
	if configure != nil {
		configure(opts)
	}
	withPool(t, opts, 2)
	ts.Server, err = codemode.New(cat, opts)
	if err != nil {
		t.Fatal(err)
	}
	hs.Config.Handler = ts.Handler()
	hs.Start()
	t.Cleanup(func() {
		hs.Close()
		if err := ts.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return ts
}

// token mints an access token for sub with scopes.
func (ts *testServer) token(sub string, scopes ...string) string {
	return ts.issuer.Mint(ts.Resource, oauthmetatest.WithClaim("sub", sub), oauthmetatest.WithScope(strings.Join(scopes, " ")))
}

// withToken adds an Authorization header to every request.
type withToken struct {
	token string
	base  http.RoundTripper
}

func (b withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.base.RoundTrip(r)
}

// newServer builds a server over cat with a sandbox of one worker, closed
// when the test ends.
func newServer(t *testing.T, cat *catalog.Catalog, opts *codemode.Options) *codemode.Server {
	t.Helper()
	o := *opts
	withPool(t, &o, 1)
	// Driven over stdio, which carries its own principal; New wants one
	// for HTTP.
	o.Principal = &catalog.Principal{Subject: "http-dev"}
	s, err := codemode.New(cat, &o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// withPool gives o a sandbox of n workers (with o's limits and mode),
// closed when the test ends.
func withPool(t testing.TB, o *codemode.Options, n int) {
	t.Helper()
	sb, err := sandbox.New(&sandbox.Options{Limits: o.Limits, Mode: o.Sandbox.Mode, PoolSize: n})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	o.Sandbox.Shared = sb
}

// serveStdio connects a go-sdk client to srv over a pair of pipes, as
// stdio does.
func serveStdio(t *testing.T, srv *codemode.Server) *mcp.ClientSession {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- srv.ServeIO(ctx, catalog.Principal{Subject: "local-user", ClientID: "test-client"}, sr, sw)
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "stdio-client", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-served
	})
	return cs
}

// run calls execute_code with code.
func run(t *testing.T, cs *mcp.ClientSession, code string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": code}})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	return res
}

// text returns the result's text content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

type lapsIn struct {
	Track string `json:"track" validate:"required"`
}

type lap struct {
	Number int `json:"number"`
	TimeMs int `json:"timeMs"`
}

// exampleCatalog registers one READ-ONLY function (codemode's
// example_test.go has the same).
func exampleCatalog() *catalog.Catalog {
	cat, err := catalog.New("garage", nil)
	if err != nil {
		log.Fatal(err)
	}
	catalog.MustAdd(cat, catalog.Func[lapsIn, []lap]{
		Name:        "getLaps",
		Description: "Lists the laps driven on a track.",
		Tier:        catalog.ReadOnly,
		Handler: func(ctx context.Context, in lapsIn) ([]lap, error) {
			return []lap{{1, 92500}, {2, 91800}, {3, 92100}}, nil
		},
	})
	return cat
}
