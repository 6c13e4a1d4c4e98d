package codemode_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
)

// callBody is a raw tools/call of execute_code running code.
func callBody(code string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":` + jsonString(code) + `}}}`
}

// An ordinary scripted client (the official go-sdk client) that opens a
// session, lists the tools and runs one execution, forty times in a row,
// is never refused by the default limit: only executions count, and forty
// fit in the default burst. Counting every message (160 here) refused it.
func TestScriptedClientWithinDefaultLimit(t *testing.T) {
	ts := startServer(t, nil)
	token := ts.token("alice", allScopes...)
	for i := range 40 {
		cs := ts.connect(t, token, nil)
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Fatalf("session %d: tools/list: %v", i, err)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{"code": "return 1"}})
		if err != nil {
			t.Fatalf("session %d: tools/call: %v", i, err)
		}
		if res.IsError {
			t.Fatalf("session %d: %s", i, text(res))
		}
		cs.Close()
	}
}

// A flood of executions from one principal is refused with 429 and
// Retry-After under the default limit, while another principal, and the
// flooder's own set-up traffic, are still served.
func TestExecutionFloodRefused(t *testing.T) {
	ts := startServer(t, nil)
	alice, bob := ts.token("alice", allScopes...), ts.token("bob", allScopes...)
	refusedAt := firstRefusal(t, ts.URL, callBody("return 1"), alice, "execution")
	if refusedAt == 0 {
		t.Fatal("400 back-to-back executions were all accepted")
	}
	t.Logf("first refusal at execution %d", refusedAt)
	if resp := rawPost(t, ts.URL, listToolsBody, mcpHeaders(alice)); resp.StatusCode != http.StatusOK {
		t.Fatalf("alice's tools/list after her flood: %d", resp.StatusCode)
	}
	if resp := rawPost(t, ts.URL, callBody("return 1"), mcpHeaders(bob)); resp.StatusCode != http.StatusOK {
		t.Fatalf("bob's execution during alice's flood: %d", resp.StatusCode)
	}
}

// hostLimiter is a host's own limiter of both kinds: it records what the
// server asks and answers as told.
type hostLimiter struct {
	mu      sync.Mutex
	taken   []string // key/n of each Take
	failed  []string // keys of each Failed
	wait    time.Duration
	failErr error
}

func (l *hostLimiter) Take(_ context.Context, key string, n int) (time.Duration, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.taken = append(l.taken, key+"/"+strconv.Itoa(n))
	return l.wait, l.failErr
}

func (l *hostLimiter) Blocked(context.Context, string) (time.Duration, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.wait, l.failErr
}

func (l *hostLimiter) Failed(_ context.Context, key string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failed = append(l.failed, key)
	return nil
}

// Options.State.RateLimiter and Options.State.FailureLimiter replace the in-process
// limits: the server asks them, honours a wait with 429 and an error with
// 503.
func TestHostLimiters(t *testing.T) {
	rl, fl := &hostLimiter{}, &hostLimiter{}
	ts := startServer(t, func(o *codemode.Options) { o.State.RateLimiter, o.State.FailureLimiter = rl, fl })
	alice := ts.token("alice", allScopes...)
	if resp := rawPost(t, ts.URL, callBody("return 1"), mcpHeaders(alice)); resp.StatusCode != http.StatusOK {
		t.Fatalf("execution: %d", resp.StatusCode)
	}
	if resp := rawPost(t, ts.URL, listToolsBody, mcpHeaders("not-a-token")); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("bad token: %d", resp.StatusCode)
	}
	rl.mu.Lock()
	fl.mu.Lock()
	if len(rl.taken) != 1 || rl.taken[0] != "sub:alice/1" {
		t.Errorf("rate limiter asked for %q, want [sub:alice/1]", rl.taken)
	}
	if len(fl.failed) != 1 || fl.failed[0] != "ip:127.0.0.1" {
		t.Errorf("failure limiter recorded %q, want [ip:127.0.0.1]", fl.failed)
	}
	rl.wait, fl.failErr = 3*time.Second, errors.New("store down")
	rl.mu.Unlock()
	fl.mu.Unlock()
	if resp := rawPost(t, ts.URL, listToolsBody, mcpHeaders(alice)); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("failure limiter down: %d, want 503", resp.StatusCode)
	}
	fl.mu.Lock()
	fl.failErr = nil
	fl.mu.Unlock()
	resp := rawPost(t, ts.URL, callBody("return 1"), mcpHeaders(alice))
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "3" {
		t.Fatalf("rate limiter says wait 3s: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

// A shared limiter and a negative rate that turns limiting off contradict
// each other: New refuses them.
func TestHostLimiterContradictions(t *testing.T) {
	cat := newTestCatalog(t).Catalog
	for _, o := range []*codemode.Options{
		{State: codemode.SharedState{RateLimiter: &hostLimiter{}}, RateLimits: codemode.RateLimitOptions{RatePerSecond: -1}},
		{State: codemode.SharedState{FailureLimiter: &hostLimiter{}}, RateLimits: codemode.RateLimitOptions{AuthFailuresPerSecond: -1}},
	} {
		o.Principal = &catalog.Principal{Subject: "dev"}
		if srv, err := codemode.New(cat, o); err == nil {
			srv.Close()
			t.Errorf("New accepted %+v", o)
		} else if !strings.Contains(err.Error(), "keep one of the two") {
			t.Errorf("error does not say what to do: %v", err)
		}
	}
}

// firstRefusal posts body as token to url until the server refuses it
// with 429 and a Retry-After, at most 400 times, and returns the number
// of the refused request, or 0 if none was. Any status but 200 and 429
// fails the test, naming the request what.
func firstRefusal(t *testing.T, url, body, token, what string) int {
	t.Helper()
	for i := 1; i <= 400; i++ {
		resp := rawPost(t, url, body, mcpHeaders(token))
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
		case http.StatusTooManyRequests:
			if resp.Header.Get("Retry-After") == "" {
				t.Fatal("429 without Retry-After")
			}
			return i
		default:
			t.Fatalf("%s %d: status %d", what, i, resp.StatusCode)
		}
	}
	return 0
}
