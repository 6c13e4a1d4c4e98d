package approvaldiff

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

// The few helpers the harness needs, which codemode's own tests keep in
// _test.go files: a server over HTTP with a test token issuer (each case
// runs as its own subject), go-sdk client sessions at a protocol
// revision over HTTP or stdio, and a result's text and structuredContent.

// server is a codemode server on a loopback port, authenticating tokens
// of a test issuer.
type server struct {
	*codemode.Server
	issuer *oauthmetatest.Issuer
	url    string // the MCP endpoint, also the tokens' audience
}

// startServer starts a server for cat with a sandbox of two workers;
// configure adjusts the options before New. The test's cleanup stops it.
func startServer(t *testing.T, cat *catalog.Catalog, configure func(*codemode.Options)) *server {
	t.Helper()
	s := &server{issuer: oauthmetatest.NewIssuer(t, nil)}
	hs := httptest.NewUnstartedServer(nil)
	s.url = "http://" + hs.Listener.Addr().String() + "/mcp"
	v := s.issuer.Verifier(s.url)
	opts := &codemode.Options{
		Version: "1.0.0",
		Auth:    &codemode.Auth{Verifier: v, Resource: s.url, AuthorizationServers: []string{s.issuer.URL}},
		Audit:   codemode.AuditOptions{Sink: codemode.AuditFunc(func(context.Context, codemode.AuditEvent) {})},
	}
	configure(opts)
	mcptest.WithPool(t, opts, 2)
	var err error
	s.Server, err = codemode.New(cat, opts)
	if err != nil {
		t.Fatal(err)
	}
	hs.Config.Handler = s.Handler()
	hs.Start()
	t.Cleanup(func() {
		hs.Close()
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// connectHTTP opens a go-sdk client session as sub, speaking revision
// version over Streamable HTTP.
func (s *server) connectHTTP(t *testing.T, sub, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return mcptest.ConnectHTTP(t, s.url, s.issuer.Mint(s.url, oauthmetatest.WithClaim("sub", sub)), version, opts)
}

// connectStdio serves a session for sub over stdio (ServeIO on pipes)
// and opens a go-sdk client session on it speaking revision version.
func (s *server) connectStdio(t *testing.T, sub, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return mcptest.ConnectIO(t, s, catalog.Principal{Subject: sub}, version, opts)
}

// subject is the subject of the principal a handler runs for.
func subject(ctx context.Context) string {
	p, _ := catalog.PrincipalFrom(ctx)
	return p.Subject
}

// structuredResult is the part of execute_code's structuredContent the
// oracle reads.
type structuredResult struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"error"`
	Writes []struct {
		Function string          `json:"function"`
		Args     json.RawMessage `json:"args"`
	} `json:"writes"`
}

// structuredOf decodes the result's structuredContent; a result without
// it decodes empty.
func structuredOf(res *mcp.CallToolResult) structuredResult {
	var s structuredResult
	if b, err := json.Marshal(res.StructuredContent); err == nil {
		_ = json.Unmarshal(b, &s)
	}
	return s
}
