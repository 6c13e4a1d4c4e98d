package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
)

func TestRunRefusesNoAuthOffLoopback(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "lab.db")
	for _, args := range [][]string{
		{"-insecure-no-auth", "-addr", "0.0.0.0:0", "-db", db},
		{"-insecure-no-auth", "-addr", ":8080", "-db", db},
	} {
		var stderr strings.Builder
		code := run(context.Background(), args, env(nil), io.Discard, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "refuses to listen") {
			t.Errorf("run(%q) = %d, stderr %q; want 2 and a refusal", args, code, stderr.String())
		}
	}
	// Refused before anything was created.
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("refused start left files behind: %v", entries)
	}
}

func TestRunHelpAndBadFlags(t *testing.T) {
	var out strings.Builder
	if code := run(context.Background(), []string{"-h"}, env(nil), io.Discard, &out); code != 0 || !strings.Contains(out.String(), "-print-types") {
		t.Errorf("-h: code %d, output %q", code, out.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"-bogus"}, env(nil), io.Discard, &out); code != 2 {
		t.Errorf("-bogus: code %d, want 2", code)
	}
}

// lineWriter delivers each line written to it on a channel.
type lineWriter struct {
	mu  sync.Mutex
	buf strings.Builder
	pw  *io.PipeWriter
}

func newLineWriter() (*lineWriter, <-chan string) {
	pr, pw := io.Pipe()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return &lineWriter{pw: pw}, lines
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	return w.pw.Write(p)
}

// TestRunServesAndShutsDownCleanly starts the real server in-process on a
// free port (auth off, as demo), runs a script, then cancels the context as
// SIGTERM would while a slow script is executing (its audit record
// "execution.started" has been logged): the call still completes, run
// returns 0, and the database is closed (its WAL file is checkpointed away)
// and opens again.
func TestRunServesAndShutsDownCleanly(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lab.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, lines := newLineWriter()
	stderr, logs := newLineWriter()
	started := make(chan struct{}, 10)
	go func() {
		for l := range logs {
			if strings.Contains(l, "event=execution.started") {
				started <- struct{}{}
			}
		}
	}()
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"-addr", "127.0.0.1:0", "-db", db, "-insecure-no-auth"}, env(nil), stdout, stderr)
		stdout.pw.Close()
		stderr.pw.Close()
	}()
	var mcpURL string
	for line := range lines {
		if f := strings.Fields(line); len(f) == 3 && f[0]+" "+f[1] == "MCP URL:" {
			mcpURL = f[2]
		}
		if strings.Contains(line, "Press Ctrl+C to stop") {
			break
		}
	}
	go func() {
		for range lines { // keep draining
		}
	}()
	if mcpURL == "" {
		t.Fatalf("no MCP URL in the banner (exit %v)", <-exited)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "main-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: mcpURL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{
		"code": `const s = await brakinglab.getSessions({ limit: 2 }); return s.length;`,
	}})
	if err != nil || res.IsError {
		t.Fatalf("execute_code: %v %+v", err, res)
	}
	<-started

	// A slow script is in flight when shutdown starts; it must still finish.
	slow := make(chan *mcp.CallToolResult, 1)
	go func() {
		r, err := cs.CallTool(context.WithoutCancel(ctx), &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{
			"code": `const t = Date.now(); while (Date.now() - t < 1000) {} return "finished";`,
		}})
		if err != nil {
			r = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		slow <- r
	}()
	<-started
	cancel()
	r := <-slow
	if code := <-exited; code != 0 {
		t.Fatalf("run exited with %d after cancellation, want 0", code)
	}
	if r.IsError || !strings.Contains(toolText(r), "finished") {
		t.Errorf("execution in flight during shutdown: %s", toolText(r))
	}
	if fi, err := os.Stat(db + "-wal"); err == nil && fi.Size() > 0 {
		t.Errorf("WAL file still holds %d bytes: the database was not closed cleanly", fi.Size())
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatalf("reopening the database: %v", err)
	}
	defer st.Close()
	if users, err := st.Users(context.Background()); err != nil || len(users) == 0 {
		t.Errorf("demo users after restart: %v, %v", users, err)
	}
}

func toolText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestWire checks the HTTP wiring of each authentication mode on the
// handler itself: where metadata is served and what it says, CORS for
// -origins, and what an unauthenticated MCP request gets.
func TestWire(t *testing.T) {
	const bound = "127.0.0.1:41234"
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	tests := []struct {
		name         string
		args         []string
		wantResource string
		wantIssuer   string // "" = no authorization server metadata served here
		wantMCP      int    // status of an initialize without a token
	}{
		{"built-in sign-in", nil, "http://127.0.0.1:41234/mcp", "http://127.0.0.1:41234", http.StatusUnauthorized},
		{"behind a tunnel", []string{"-public-url", "https://lab.example"}, "https://lab.example/mcp", "https://lab.example", http.StatusUnauthorized},
		{"external issuer", []string{"-issuer", "https://id.example"}, "http://127.0.0.1:41234/mcp", "", http.StatusUnauthorized},
		{"no auth", []string{"-insecure-no-auth"}, "", "", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"-db", filepath.Join(t.TempDir(), "lab.db"), "-no-demo", "-user", "demo",
				"-origins", "https://inspector.example"}, tt.args...)
			srv := serveWired(t, bound, args, func(a *app) {
				if a.cfg.NoAuth { // the principal must exist
					if _, err := a.store.CreateUser(context.Background(), "", "demo", "Demo", "pw"); err != nil {
						t.Fatal(err)
					}
				}
			})

			var prm struct{ Resource string }
			code := getJSON(t, srv.URL+"/.well-known/oauth-protected-resource/mcp", &prm)
			if tt.wantResource == "" {
				if code != http.StatusNotFound {
					t.Errorf("resource metadata without auth: status %d, want 404", code)
				}
			} else if prm.Resource != tt.wantResource {
				t.Errorf("resource = %q, want %q", prm.Resource, tt.wantResource)
			}
			var asm struct{ Issuer string }
			code = getJSON(t, srv.URL+"/.well-known/oauth-authorization-server", &asm)
			if tt.wantIssuer == "" && code != http.StatusNotFound || tt.wantIssuer != "" && asm.Issuer != tt.wantIssuer {
				t.Errorf("authorization server metadata: status %d issuer %q, want %q", code, asm.Issuer, tt.wantIssuer)
			}

			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(initialize))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.wantMCP {
				t.Errorf("initialize without a token: status %d, want %d", resp.StatusCode, tt.wantMCP)
			}

			for origin, allowed := range map[string]bool{"https://inspector.example": true, "https://evil.example": false} {
				req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/mcp", nil)
				req.Header.Set("Origin", origin)
				req.Header.Set("Access-Control-Request-Method", "POST")
				req.Header.Set("Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if got := resp.Header.Get("Access-Control-Allow-Origin") == origin; got != allowed {
					t.Errorf("preflight from %s: allowed=%v, want %v", origin, got, allowed)
				}
			}
		})
	}
}

// getJSON fetches u into v and returns the status code.
func getJSON(t *testing.T, u string, v any) int {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
	}
	return resp.StatusCode
}

// TestRunPortInUse fails fast with advice, before the database is created.
func TestRunPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	var stderr strings.Builder
	code := run(context.Background(), []string{"-addr", ln.Addr().String(), "-db", filepath.Join(dir, "lab.db")}, env(nil), io.Discard, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "already in use") {
		t.Errorf("code %d, stderr %q; want 1 and 'already in use'", code, stderr.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a failed start left files behind: %v", entries)
	}
}
