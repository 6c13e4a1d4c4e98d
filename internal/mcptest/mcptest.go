// Package mcptest connects the official go-sdk MCP client to a codemode
// server in the tests of codemode, internal/integration and
// internal/testdata/approvaldiff, which each used to carry a copy of
// these helpers:
//
//   - [Header] and [Bearer] add a header to every HTTP request, for a
//     client's token or traceparent;
//   - [ConnectHTTP] opens a client session over Streamable HTTP with a
//     bearer token, at a protocol revision;
//   - [ConnectIO] serves a session over stdio (ServeIO on a pair of
//     pipes) and opens a client session on it;
//   - [Run] calls execute_code and [Text] reads a result's text;
//   - [WithPool] gives a server a sandbox of its own size.
//
// Every session is closed, and every served session waited for, when the
// test ends. Hosts' tests want codemode/codemodetest, which runs scripts
// without HTTP; this package is for the library's own tests of its
// transports. The modules below the repository root may import it
// because Go allows an internal package to be imported from any path
// below its parent.
//
// It imports only what the root module already requires.
package mcptest

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

// ClientInfo is the implementation every client of this package
// announces.
var ClientInfo = mcp.Implementation{Name: "test-client", Title: "Test Client", Version: "1"}

// header is the RoundTripper of Header.
type header struct {
	key, value string
	base       http.RoundTripper
}

func (h header) RoundTrip(r *http.Request) (*http.Response, error) {
	if h.value != "" {
		r = r.Clone(r.Context())
		r.Header.Set(h.key, h.value)
	}
	return h.base.RoundTrip(r)
}

// Header returns a RoundTripper that sets the header key to value on
// every request (none when value is empty) and sends it with base
// (http.DefaultTransport when nil). The caller's request is not changed.
func Header(key, value string, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return header{key, value, base}
}

// Bearer returns an HTTP client whose requests carry the Authorization
// header "Bearer token", or none when token is empty.
func Bearer(token string) *http.Client {
	if token == "" {
		return &http.Client{Transport: http.DefaultTransport}
	}
	return &http.Client{Transport: Header("Authorization", "Bearer "+token, nil)}
}

// ConnectHTTP opens a client session with opts on the Streamable HTTP
// endpoint with token (none when empty), speaking revision version (the
// client's default when empty). It fails tb if the client cannot
// connect, and closes the session when tb ends.
func ConnectHTTP(tb testing.TB, endpoint, token, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	tb.Helper()
	info := ClientInfo
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: Bearer(token)}
	cs, err := mcp.NewClient(&info, opts).Connect(context.Background(), tr, sessionOptions(version))
	if err != nil {
		tb.Fatalf("connect at %q: %v", version, err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

func sessionOptions(version string) *mcp.ClientSessionOptions {
	if version == "" {
		return nil
	}
	return &mcp.ClientSessionOptions{ProtocolVersion: version}
}

// IOServer is what ConnectIO serves: *codemode.Server.
type IOServer interface {
	ServeIO(ctx context.Context, principal catalog.Principal, r io.ReadCloser, w io.WriteCloser) error
}

// ConnectIO serves a session of srv for principal over a pair of pipes,
// as stdio does, and opens a client session with opts on it, speaking
// revision version (the client's default when empty). When tb ends it
// closes the client, which ends the session as a client leaving does,
// and waits for ServeIO to return; it cancels ServeIO only if that has
// not happened within five seconds (cancelling first would end the
// session as "server run cancelled", logged as an error).
func ConnectIO(tb testing.TB, srv IOServer, principal catalog.Principal, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	tb.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeIO(ctx, principal, inR, outW) }()
	info := ClientInfo
	cs, err := mcp.NewClient(&info, opts).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, sessionOptions(version))
	if err != nil {
		cancel()
		<-done
		tb.Fatalf("connect over stdio at %q: %v", version, err)
	}
	tb.Cleanup(func() {
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

// Run calls execute_code with code on cs. It fails tb if the call fails
// at the protocol level; a failed execution is a result with IsError.
func Run(tb testing.TB, cs *mcp.ClientSession, code string) *mcp.CallToolResult {
	tb.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": code}})
	if err != nil {
		tb.Fatalf("CallTool: %v", err)
	}
	return res
}

// Text returns the result's text content, its text parts joined.
func Text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// WithPool gives o a sandbox of n workers, with o's limits and mode, as
// o.Sandbox.Shared, and closes it when tb ends (after the server, whose
// Close a cleanup registered later runs first).
func WithPool(tb testing.TB, o *codemode.Options, n int) {
	tb.Helper()
	sb, err := sandbox.New(&sandbox.Options{Limits: o.Limits, Mode: o.Sandbox.Mode, PoolSize: n})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sb.Close() })
	o.Sandbox.Shared = sb
}

// ConnectMemory connects a client with opts to srv, a go-sdk server
// (codemode.Server.MCPServer(), or a host's own with the code tools
// added), over in-memory transports; ctx is the server session's context
// (a principal in it acts as the caller) and the client's. Both sessions
// close when tb ends.
func ConnectMemory(tb testing.TB, ctx context.Context, srv *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	tb.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ss.Close() })
	info := ClientInfo
	cs, err := mcp.NewClient(&info, opts).Connect(ctx, ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

// Post sends one raw JSON-RPC message, body, to the MCP endpoint url as a
// client would (JSON, accepting JSON or an event stream) with the bearer
// token (none when empty) and the Mcp-Protocol-Version header version
// (none when empty). It returns the status, the body and how long the
// answer took. It reports failures instead of failing a test, so that a
// goroutine other than the test's may call it.
func Post(ctx context.Context, url, token, version, body string) (int, string, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, "", 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), time.Since(start), err
}
