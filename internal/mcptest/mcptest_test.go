package mcptest_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/sandbox"
)

// Header sets its header on the request sent, not on the caller's
// request, and sets nothing for an empty value; Bearer sends the token
// as a bearer token, or no Authorization header without one.
func TestHeaderAndBearer(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got <- r.Header.Clone() }))
	defer srv.Close()
	for _, tt := range []struct {
		client      *http.Client
		key, want   string
		description string
	}{
		{&http.Client{Transport: mcptest.Header("Traceparent", "00-abc-def-01", nil)}, "Traceparent", "00-abc-def-01", "header"},
		{&http.Client{Transport: mcptest.Header("Traceparent", "", nil)}, "Traceparent", "", "empty header"},
		{mcptest.Bearer("tok"), "Authorization", "Bearer tok", "bearer"},
		{mcptest.Bearer(""), "Authorization", "", "no token"},
		{&http.Client{Transport: mcptest.Header("X-A", "1", mcptest.Bearer("tok").Transport)}, "Authorization", "Bearer tok", "stacked"},
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		resp, err := tt.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if h := <-got; h.Get(tt.key) != tt.want {
			t.Errorf("%s: %s %q, want %q", tt.description, tt.key, h.Get(tt.key), tt.want)
		}
		if len(req.Header) != 0 {
			t.Errorf("%s: the caller's request changed: %v", tt.description, req.Header)
		}
	}
}

type echoIn struct {
	Say string `json:"say" validate:"required"`
}

// echo has one READ-ONLY function, echo.say, which reports who called
// it.
func echo(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.New("echo", nil)
	if err != nil {
		t.Fatal(err)
	}
	catalog.MustAdd(cat, catalog.Func[echoIn, string]{
		Name: "say", Description: "Echoes.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, in echoIn) (string, error) {
			p, _ := catalog.PrincipalFrom(ctx)
			return p.Subject + ": " + in.Say, nil
		},
	})
	return cat
}

// server serves echo in a sandbox that WithPool gave it.
func server(t *testing.T) *codemode.Server {
	t.Helper()
	cat := echo(t)
	o := &codemode.Options{Logger: slog.New(slog.DiscardHandler), Principal: &catalog.Principal{Subject: "http-user"}, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}, Audit: codemode.AuditOptions{Sink: codemode.NoAudit}}
	mcptest.WithPool(t, o, 1)
	if o.Sandbox.Shared == nil {
		t.Fatal("WithPool set no sandbox")
	}
	srv, err := codemode.New(cat, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// The same server answers a client over HTTP, one over stdio and one in
// memory, each as its own principal, at the revision asked for.
func TestConnectRunText(t *testing.T) {
	srv := server(t)
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	for name, cs := range map[string]*mcp.ClientSession{
		"http-user":  mcptest.ConnectHTTP(t, hs.URL+"/mcp", "", "2025-06-18", nil),
		"stdio-user": mcptest.ConnectIO(t, srv, catalog.Principal{Subject: "stdio-user"}, "2025-06-18", nil),
		"memory-user": mcptest.ConnectMemory(t, catalog.WithPrincipal(context.Background(), catalog.Principal{Subject: "memory-user"}), srv.MCPServer(),
			&mcp.ClientOptions{}),
	} {
		if v := cs.InitializeResult().ProtocolVersion; v != "2025-06-18" && name != "memory-user" {
			t.Errorf("%s: revision %s", name, v)
		}
		res := mcptest.Run(t, cs, `return await echo.say({ say: "hi" })`)
		if got := mcptest.Text(res); res.IsError || !strings.Contains(got, `"`+name+`: hi"`) {
			t.Errorf("%s: %s", name, got)
		}
		if res := mcptest.Run(t, cs, `throw new Error("boom")`); !res.IsError || !strings.Contains(mcptest.Text(res), "boom") {
			t.Errorf("%s: a failing script: %s", name, mcptest.Text(res))
		}
	}
}

// StartHTTP's server admits the issuer's tokens and refuses a request
// without one; configure sees the issuer and may replace the options;
// an approval page gets its URL and is mounted at /approve/.
func TestStartHTTP(t *testing.T) {
	var page *approval.Page
	s := mcptest.StartHTTP(t, echo(t), func(s *mcptest.Server, o *codemode.Options) {
		if o.Auth == nil || o.Auth.Resource != s.URL || o.Auth.AuthorizationServers[0] != s.Issuer.URL {
			t.Errorf("auth %+v", o.Auth)
		}
		page = &approval.Page{Authenticate: func(*http.Request) (catalog.Principal, bool) { return catalog.Principal{}, false }}
		o.Approvals.Page = page
		o.Logger = slog.New(slog.DiscardHandler)
		o.Sandbox.Mode = sandbox.ModeInProcess
	})
	if page.URL != s.Base+"/approve/" || s.URL != s.Base+"/mcp" {
		t.Fatalf("page URL %q, MCP URL %q, base %q", page.URL, s.URL, s.Base)
	}
	cs := mcptest.ConnectHTTP(t, s.URL, s.Token("alice"), "", nil)
	if res := mcptest.Run(t, cs, `return await echo.say({ say: "hi" })`); res.IsError || !strings.Contains(mcptest.Text(res), `"alice: hi"`) {
		t.Fatalf("with a token: %s", mcptest.Text(res))
	}
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":"return await echo.say({ say: 'raw' })"}}}`
	if status, body, _, err := mcptest.Post(t.Context(), s.URL, "", "2025-06-18", call); err != nil || status != http.StatusUnauthorized {
		t.Fatalf("without a token: %d %s %v", status, body, err)
	}
	if status, body, _, err := mcptest.Post(t.Context(), s.URL, s.Token("bob"), "2025-06-18", call); err != nil || status != http.StatusOK || !strings.Contains(body, `bob: raw`) {
		t.Fatalf("raw call with a token: %d %s %v", status, body, err)
	}
	resp, err := http.Get(s.Base + "/approve/AAAAAAAAAAAAAAAAAAAAAA")
	// Not signed in: the page asks the user to sign in, it is not a 404.
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		t.Fatalf("approval page: %d", resp.StatusCode)
	}
}

// An Asker answers as told and remembers what it was asked; Take forgets.
func TestAsker(t *testing.T) {
	for _, action := range []string{"accept", "decline"} {
		a := &mcptest.Asker{Action: action}
		for _, m := range []string{"one?", "two?"} {
			res, err := a.Options().ElicitationHandler(t.Context(), &mcp.ElicitRequest{Params: &mcp.ElicitParams{Message: m}})
			if err != nil || res.Action != action || (action == "accept") != (res.Content != nil) {
				t.Fatalf("%s: %+v, %v", action, res, err)
			}
		}
		if got := a.Asked(); strings.Join(got, "|") != "one?|two?" {
			t.Fatalf("asked %q", got)
		}
		if got := a.Take(); len(got) != 2 || len(a.Asked()) != 0 || len(a.Take()) != 0 {
			t.Fatalf("take %q, then %q", got, a.Asked())
		}
	}
}
