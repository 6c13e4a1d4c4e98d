package mcpsource_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/mcpsource"
)

// The reference everything server over Streamable HTTP: hyphenated names
// are converted, content-only results become values (text and an image),
// and an outputSchema's structured result comes back as an object.
func TestEverythingOverHTTP(t *testing.T) {
	bin, script := node(t, "server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, script, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	waitFor(t, func() bool {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
		}
		return err == nil
	})

	c := newCatalog(t, "everything")
	connect(t, c, &mcpsource.Options{URL: url})
	for _, n := range []string{"echo", "get_sum", "get_tiny_image", "get_structured_content"} {
		if !has(c, n) {
			t.Fatalf("no %s among %v", n, c.Functions())
		}
	}
	if out := mustCall(t, c, "echo", `{"message":"hello"}`); out != `"Echo: hello"` {
		t.Errorf("echo: %s", out)
	}
	if out := mustCall(t, c, "get_sum", `{"a":2,"b":3}`); !strings.Contains(out, "5") {
		t.Errorf("get_sum: %s", out)
	}
	img := mustCall(t, c, "get_tiny_image", `{}`)
	if !strings.HasPrefix(img, `["Here's the image you requested:",{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo`) {
		t.Errorf("get_tiny_image: %.200s", img)
	}
	if out := mustCall(t, c, "get_structured_content", `{"location":"Chicago"}`); out != `{"conditions":"Light rain / drizzle","humidity":82,"temperature":36}` {
		t.Errorf("get_structured_content: %s", out)
	}
	_, err = call(t, c, "get_structured_content", `{"location":"Paris"}`)
	wantCode(t, err, catalog.CodeValidation, "Validation failed")
}

// An HTTP upstream gets the host's credentials (Header) and never the
// user's token from the execute_code request.
func TestHTTPNoTokenPassthrough(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "whoami", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			h := req.Extra.Header
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "key=" + h.Get("X-Api-Key") + " auth=" + h.Get("Authorization")}}}, nil, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close) // after the upstream closes its streams

	c := newCatalog(t, "remote")
	connect(t, c, &mcpsource.Options{URL: hs.URL, Header: func(context.Context) http.Header {
		return http.Header{"X-Api-Key": {"host-key"}}
	}})
	outer := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "execute_code"}, Extra: &mcp.RequestExtra{
		TokenInfo: &auth.TokenInfo{UserID: "alice"}, Header: http.Header{"Authorization": {"Bearer users-token"}},
	}}
	out, err := c.Call(mcpsource.WithRequest(alice, outer), "whoami", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `"key=host-key auth="` {
		t.Fatalf("the upstream saw %s", out)
	}
}

// With PerPrincipal each caller gets its own session, made by Transport
// with the caller's principal; anonymous calls and the listing use the
// shared one.
func TestPerPrincipalSessions(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "per", Version: "1"}, nil)
	var (
		mu       sync.Mutex
		sessions = map[*mcp.ServerSession]int{}
	)
	mcp.AddTool(srv, &mcp.Tool{Name: "visit", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			defer mu.Unlock()
			sessions[req.Session]++
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(sessions[req.Session])}}}, nil, nil
		})
	var made []string
	c, err := catalog.New("per", &catalog.Options{Logger: quiet, AllowAnonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	connect(t, c, &mcpsource.Options{PerPrincipal: true, Transport: func(ctx context.Context, p *catalog.Principal) (mcp.Transport, error) {
		who := "shared"
		if p != nil {
			who = p.Subject
		}
		mu.Lock()
		made = append(made, who)
		mu.Unlock()
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}})
	bob := catalog.WithPrincipal(context.Background(), catalog.Principal{Subject: "bob"})
	for i, step := range []struct {
		ctx  context.Context
		want string
	}{{alice, "1"}, {alice, "2"}, {bob, "1"}, {context.Background(), "1"}, {alice, "3"}} {
		out, err := c.Call(step.ctx, "visit", nil)
		if err != nil || string(out) != `"`+step.want+`"` {
			t.Fatalf("call %d: %s %v, want %s", i, out, err, step.want)
		}
	}
	if got := strings.Join(made, ","); got != "shared,alice,bob" {
		t.Fatalf("transports made for %s", got)
	}
}
