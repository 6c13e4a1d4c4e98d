package codemode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

// testServer is a codemode server on a loopback port with a test issuer
// (mcptest.StartHTTP), and the audit events it recorded.
type testServer struct {
	*codemode.Server
	hs       *mcptest.Server
	cat      *testCatalog
	issuer   *oauthmetatest.Issuer
	URL      string // the MCP endpoint
	Resource string
	audit    *auditRecorder
}

// startServer starts a server with authentication by a test issuer.
// configure may adjust the options before New.
func startServer(t *testing.T, configure func(*codemode.Options)) *testServer {
	t.Helper()
	tc := newTestCatalog(t)
	ts := startServerFor(t, tc.Catalog, configure)
	ts.cat = tc
	return ts
}

// startServerFor is startServer for any catalog.
func startServerFor(t *testing.T, cat *catalog.Catalog, configure func(*codemode.Options)) *testServer {
	t.Helper()
	ts := &testServer{audit: &auditRecorder{}}
	ts.hs = mcptest.StartHTTP(t, cat, func(_ *mcptest.Server, o *codemode.Options) {
		o.Audit.Sink = ts.audit
		if configure != nil {
			configure(o)
		}
	})
	ts.Server, ts.issuer, ts.URL, ts.Resource = ts.hs.Server, ts.hs.Issuer, ts.hs.URL, ts.hs.URL
	return ts
}

// token mints an access token for sub with scopes.
func (ts *testServer) token(sub string, scopes ...string) string {
	return ts.hs.Token(sub, scopes...)
}

// connect opens an MCP client session with the official go-sdk client.
func (ts *testServer) connect(t *testing.T, token string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return mcptest.ConnectHTTP(t, ts.URL, token, "", opts)
}

// run calls execute_code with code; text returns a result's text
// content; withPool gives options a sandbox of n workers. The names stay
// for the many tests that use them.
var (
	run      = mcptest.Run
	text     = mcptest.Text
	withPool = mcptest.WithPool
)

// structuredOf decodes the result's structuredContent.
type structuredResult struct {
	Result json.RawMessage `json:"result"`
	Logs   []string        `json:"logs"`
	Calls  []struct {
		Function string `json:"function"`
		Outcome  string `json:"outcome"`
		Error    string `json:"error"`
	} `json:"calls"`
	Truncated bool `json:"truncated"`
	Error     *struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
		Line    int    `json:"line"`
		Column  int    `json:"column"`
		Issues  []struct {
			Path    []any  `json:"path"`
			Message string `json:"message"`
		} `json:"issues"`
	} `json:"error"`
	ApprovalURL string `json:"approvalUrl"`
	Writes      []struct {
		Function string          `json:"function"`
		Args     json.RawMessage `json:"args"`
		ID       json.RawMessage `json:"id"`
	} `json:"writes"`
}

func structuredOf(t *testing.T, res *mcp.CallToolResult) structuredResult {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var s structuredResult
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	return s
}

// trail describes res and the audit events so far, for a failure message
// that shows which call an execution was waiting on.
func (ts *testServer) trail(res *mcp.CallToolResult) string {
	var b strings.Builder
	sc, _ := json.Marshal(res.StructuredContent)
	fmt.Fprintf(&b, "structuredContent: %s\n", sc)
	for _, ev := range ts.audit.all() {
		fmt.Fprintf(&b, "audit %s %s %s %s %s\n", ev.Time.Format("15:04:05.000"), ev.Kind, ev.Function, ev.Duration, ev.ErrorKind)
	}
	return b.String()
}

// auditRecorder keeps audit events for assertions.
type auditRecorder struct {
	mu     sync.Mutex
	events []codemode.AuditEvent
}

func (a *auditRecorder) Audit(_ context.Context, ev codemode.AuditEvent) {
	a.mu.Lock()
	a.events = append(a.events, ev)
	a.mu.Unlock()
}

func (a *auditRecorder) all() []codemode.AuditEvent {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]codemode.AuditEvent(nil), a.events...)
}

// rawPost sends one JSON-RPC POST to url with extra headers and returns
// the response.
func rawPost(t *testing.T, url, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

var _ = net.JoinHostPort

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// newServer builds a Server with a worker-pool sandbox of one worker,
// closed at the end of the test.
func newServer(t *testing.T, cat any, opts *codemode.Options) *codemode.Server {
	t.Helper()
	var o codemode.Options
	if opts != nil {
		o = *opts
	}
	if o.Sandbox.Shared == nil {
		withPool(t, &o, 1)
	}
	if o.Auth == nil && o.Principal == nil {
		// These servers are driven over in-memory and stdio transports,
		// which carry their own principal; New wants one for HTTP.
		o.Principal = &catalog.Principal{Subject: "http-dev"}
	}
	var c *catalog.Catalog
	switch v := cat.(type) {
	case *catalog.Catalog:
		c = v
	case *testCatalog:
		c = v.Catalog
	}
	s, err := codemode.New(c, &o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
