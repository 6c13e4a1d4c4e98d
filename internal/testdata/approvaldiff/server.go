package approvaldiff

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
	"github.com/brakinglab/codemode-go/sandbox"
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
	sb, err := sandbox.New(&sandbox.Options{Limits: opts.Limits, Mode: opts.Sandbox.Mode, PoolSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() }) // after the server's Close: cleanups run last first
	opts.Sandbox.Shared = sb
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

// bearerToken adds an Authorization header to every request.
type bearerToken struct {
	token string
	base  http.RoundTripper
}

func (b bearerToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// connectHTTP opens a go-sdk client session as sub, speaking revision
// version over Streamable HTTP.
func (s *server) connectHTTP(t *testing.T, sub, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	token := s.issuer.Mint(s.url, oauthmetatest.WithClaim("sub", sub))
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Title: "Test Client", Version: "1"}, opts)
	tr := &mcp.StreamableClientTransport{
		Endpoint:   s.url,
		HTTPClient: &http.Client{Transport: bearerToken{token, http.DefaultTransport}},
	}
	cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect at %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectStdio serves a session for sub over stdio (ServeIO on pipes)
// and opens a go-sdk client session on it speaking revision version.
func (s *server) connectStdio(t *testing.T, sub, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeIO(ctx, catalog.Principal{Subject: sub}, inR, outW) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Title: "Test Client", Version: "1"}, opts)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Closing the client ends the session; cancelling first would
		// end it as "server run cancelled", logged as an error.
		cs.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cancel()
			<-done
		}
		cancel()
	})
	return cs
}

// subject is the subject of the principal a handler runs for.
func subject(ctx context.Context) string {
	p, _ := catalog.PrincipalFrom(ctx)
	return p.Subject
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
