package approvaldiff

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
)

// The few helpers the harness needs, which codemode's own tests keep in
// _test.go files: a server over HTTP with a test token issuer (each case
// runs as its own subject), go-sdk client sessions at a protocol
// revision over HTTP or stdio, and a result's text and structuredContent.

// server is a codemode server on a loopback port, authenticating tokens
// of a test issuer (mcptest.StartHTTP).
type server struct {
	*mcptest.Server
}

// startServer starts a server for cat with a sandbox of two workers and
// no audit; configure adjusts the options before New. The test's cleanup
// stops it.
func startServer(t *testing.T, cat *catalog.Catalog, configure func(*codemode.Options)) *server {
	t.Helper()
	return &server{mcptest.StartHTTP(t, cat, func(_ *mcptest.Server, o *codemode.Options) {
		o.Audit.Sink = codemode.AuditFunc(func(context.Context, codemode.AuditEvent) {})
		configure(o)
	})}
}

// connectHTTP opens a go-sdk client session as sub, speaking revision
// version over Streamable HTTP.
func (s *server) connectHTTP(t *testing.T, sub, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return mcptest.ConnectHTTP(t, s.URL, s.Token(sub), version, opts)
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

// text returns the result's text content.
var text = mcptest.Text
