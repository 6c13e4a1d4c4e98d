package main

import (
	"bufio"
	"context"
	"io"
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
