package codemode_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/codemode"
)

// plainCallBody is a raw tools/call of a host's plain tool.
const plainCallBody = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_note","arguments":{}}}`

// readDeclarationsBody reads the declarations resource; pad adds an
// ignored parameter of that many bytes.
func readDeclarationsBody(pad int) string {
	return `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"codemode://types/brakinglab.d.ts","_meta":{"pad":"` + strings.Repeat("x", pad) + `"}}}`
}

// batchOf is a JSON-RPC batch of n copies of msg, numbered from 1.
func batchOf(n int, msg string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strings.Replace(msg, `"id":1`, `"id":`+strconv.Itoa(i+1), 1)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// startWithPlainTool starts a server whose MCP server also serves a
// plain tool, get_note.
func startWithPlainTool(t *testing.T, configure func(*codemode.Options)) *testServer {
	ts := startServer(t, configure)
	mcp.AddTool(ts.MCPServer(), &mcp.Tool{Name: "get_note"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a note"}}}, nil, nil
	})
	return ts
}

// A burst of plain tool calls does not spend the execution budget: the
// 61st get_note in a burst is served, and so is an execution after 100 of
// them. With RateLimitPlainTools the host counts them as executions.
func TestPlainToolsOutsideExecutionLimit(t *testing.T) {
	ts := startWithPlainTool(t, nil)
	alice := ts.token("alice", allScopes...)
	for i := range 100 {
		if resp := rawPost(t, ts.URL, plainCallBody, mcpHeaders(alice)); resp.StatusCode != http.StatusOK {
			t.Fatalf("plain call %d: %d", i+1, resp.StatusCode)
		}
	}
	if resp := rawPost(t, ts.URL, callBody("return 1"), mcpHeaders(alice)); resp.StatusCode != http.StatusOK {
		t.Fatalf("execution after 100 plain calls: %d", resp.StatusCode)
	}

	// A rate that refills nothing within the test, so a slow machine
	// cannot earn the 61st call a token.
	counted := startWithPlainTool(t, func(o *codemode.Options) {
		o.RateLimits.RateLimitPlainTools, o.RateLimits.RatePerSecond, o.RateLimits.RateBurst = true, 0.0001, 60
	})
	alice = counted.token("alice", allScopes...)
	for i := 1; i <= 61; i++ {
		resp := rawPost(t, counted.URL, plainCallBody, mcpHeaders(alice))
		want := http.StatusOK
		if i > 60 {
			want = http.StatusTooManyRequests
		}
		if resp.StatusCode != want {
			t.Fatalf("RateLimitPlainTools: plain call %d: %d, want %d", i, resp.StatusCode, want)
		}
	}
}

// Every method counts against the request limit: a loop of resources/read
// is refused with 429 once the burst is spent, while another principal is
// still served.
func TestEveryMethodLimited(t *testing.T) {
	// The default burst, refilled slowly: at the default rate a loaded
	// machine refills a token between two of the requests below.
	ts := startServer(t, func(o *codemode.Options) { o.RateLimits.RequestsPerSecond = 0.01 })
	alice, bob := ts.token("alice", allScopes...), ts.token("bob", allScopes...)
	refusedAt := firstRefusal(t, ts.URL, readDeclarationsBody(0), alice, "read")
	if refusedAt != codemode.DefaultRequestBurst+1 {
		t.Fatalf("first refusal at read %d, want %d: right after the burst of %d", refusedAt, codemode.DefaultRequestBurst+1, codemode.DefaultRequestBurst)
	}
	for _, body := range []string{listToolsBody, readDeclarationsBody(0), `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"resources/templates/list"}`, `{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`} {
		if resp := rawPost(t, ts.URL, body, mcpHeaders(alice)); resp.StatusCode != http.StatusTooManyRequests {
			t.Errorf("alice's %s after her flood: %d, want 429", body, resp.StatusCode)
		}
	}
	if resp := rawPost(t, ts.URL, readDeclarationsBody(0), mcpHeaders(bob)); resp.StatusCode != http.StatusOK {
		t.Fatalf("bob's read during alice's flood: %d", resp.StatusCode)
	}
}

// A batch is refused on the revisions that removed batching; elsewhere a
// batch holds at most 10 messages and each costs a token.
func TestBatches(t *testing.T) {
	ts := startServer(t, func(o *codemode.Options) { o.RateLimits.RequestBurst = 25; o.RateLimits.RequestsPerSecond = 0.001 })
	alice := ts.token("alice", allScopes...)
	for _, v := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		h := mcpHeaders(alice)
		h["Mcp-Protocol-Version"] = v
		resp := rawPost(t, ts.URL, batchOf(2, listToolsBody), h)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "one message per POST") {
			t.Errorf("batch under %s: %d %s", v, resp.StatusCode, b)
		}
	}
	resp := rawPost(t, ts.URL, batchOf(11, listToolsBody), mcpHeaders(alice))
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "at most 10 messages") {
		t.Errorf("batch of 11: %d %s", resp.StatusCode, b)
	}
	// 25 tokens: two batches of 10 and the refused ones cost nothing.
	for i := range 2 {
		if resp := rawPost(t, ts.URL, batchOf(10, listToolsBody), mcpHeaders(alice)); resp.StatusCode != http.StatusOK {
			t.Fatalf("batch %d of 10: %d", i, resp.StatusCode)
		}
	}
	if resp := rawPost(t, ts.URL, batchOf(10, listToolsBody), mcpHeaders(alice)); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("third batch of 10 with 5 tokens left: %d", resp.StatusCode)
	}
	for i := range 5 {
		if resp := rawPost(t, ts.URL, listToolsBody, mcpHeaders(alice)); resp.StatusCode != http.StatusOK {
			t.Fatalf("single message %d of the 5 left: %d", i, resp.StatusCode)
		}
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rss is the process's resident memory in bytes, from /proc/self/status.
func rss(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// A 1 MiB request, whatever it asks, makes at most 4 times its size in
// response, costs the host under a second of CPU and grows its memory by
// less than 32 MiB (a batch of 7,500 reads once took it from 36 to 86
// MiB): the largest batch
// accepted (10 reads of the declarations, padded to fill the body), a
// batch of 7,500 reads (refused), and one padded message. Another user is
// served right after.
func TestMiBRequestBounded(t *testing.T) {
	ts := startServer(t, func(o *codemode.Options) { o.RateLimits.RequestsPerSecond = -1 })
	alice, bob := ts.token("alice", allScopes...), ts.token("bob", allScopes...)
	const size = 1<<20 - 1024
	base := len(readDeclarationsBody(0)) + 1
	for name, body := range map[string]string{
		"10 padded reads": batchOf(10, readDeclarationsBody(size/10-base)),
		"7,500 reads":     batchOf(7500, readDeclarationsBody(size/7500-base-4)),
		"one padded read": readDeclarationsBody(size - base),
	} {
		if len(body) > 1<<20 || len(body) < 1<<20-16<<10 {
			t.Fatalf("%s: body of %d bytes", name, len(body))
		}
		before, mem := cpuTime(t), rss(t)
		resp := rawPost(t, ts.URL, body, mcpHeaders(alice))
		n, err := io.Copy(io.Discard, resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		cpu, grown := cpuTime(t)-before, rss(t)-mem
		t.Logf("%s: status %d, %d bytes in, %d bytes out, %v CPU, RSS +%d KiB", name, resp.StatusCode, len(body), n, cpu, grown>>10)
		if grown > 32<<20 {
			t.Errorf("%s: resident memory grew by %d MiB", name, grown>>20)
		}
		if n > 4*int64(len(body)) {
			t.Errorf("%s: %d bytes out for %d in", name, n, len(body))
		}
		if cpu > time.Second {
			t.Errorf("%s: %v of host CPU", name, cpu)
		}
		if resp := rawPost(t, ts.URL, readDeclarationsBody(0), mcpHeaders(bob)); resp.StatusCode != http.StatusOK {
			t.Fatalf("bob after %s: %d", name, resp.StatusCode)
		}
	}
}
