package integration_test

// The parts of codemode's test harness (codemode/harness_test.go,
// catalog_test.go, progress_test.go) these tests use, for a server built
// from the public API only.

import (
	"context"
	"log"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/oauthmeta/jwtverify"
)

// testServer is a codemode server on a loopback port with a test issuer
// (mcptest.StartHTTP) whose tokens jwtverify checks.
type testServer struct {
	*mcptest.Server
}

// startServerFor starts a server over cat with authentication by a test
// issuer, verified by jwtverify, and a sandbox of two workers; configure
// may adjust the options before New.
func startServerFor(t *testing.T, cat *catalog.Catalog, configure func(*codemode.Options)) *testServer {
	t.Helper()
	return &testServer{mcptest.StartHTTP(t, cat, func(s *mcptest.Server, o *codemode.Options) {
		v, err := jwtverify.New(s.Issuer.URL, s.URL, &jwtverify.Options{JWKSURL: s.Issuer.JWKSURL})
		if err != nil {
			t.Fatal(err)
		}
		o.Auth.Verifier = v
		if configure != nil {
			configure(o)
		}
	})}
}

// token mints an access token for sub with scopes.
func (ts *testServer) token(sub string, scopes ...string) string { return ts.Token(sub, scopes...) }

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

// serveStdio connects a go-sdk client to srv over a pair of pipes, as
// stdio does; run calls execute_code with code; text returns a result's
// text content; withPool gives options a sandbox of n workers.
func serveStdio(t *testing.T, srv *codemode.Server) *mcp.ClientSession {
	t.Helper()
	return mcptest.ConnectIO(t, srv, catalog.Principal{Subject: "local-user", ClientID: "test-client"}, "", nil)
}

var (
	run      = mcptest.Run
	text     = mcptest.Text
	withPool = mcptest.WithPool
)

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
