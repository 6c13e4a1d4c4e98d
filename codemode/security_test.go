package codemode_test

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
)

// TestBatchCountsAgainstRateLimit: a JSON-RPC batch (accepted by go-sdk for
// protocol 2025-03-26, the revision assumed when the header is absent) holds
// many requests in one POST. Each must cost one token of the principal's
// rate limit, or one POST could start hundreds of executions.
func TestBatchCountsAgainstRateLimit(t *testing.T) {
	ts := startServer(t, func(o *codemode.Options) { o.RateLimits.RatePerSecond, o.RateLimits.RateBurst = 0.001, 3 })
	tok := ts.token("alice", allScopes...)
	var calls []string
	for i := range 10 {
		calls = append(calls, sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":"return (await brakinglab.getSessions({limit: 1})).length"}}}`, i+1))
	}
	batch := "[" + strings.Join(calls, ",") + "]"
	resp := rawPost(t, ts.URL, batch, mcpHeaders(tok))
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		n := strings.Count(string(body), `"structuredContent"`)
		t.Fatalf("a batch of 10 calls under a burst of 3 was served (%d results): %.300s", n, body)
	}
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status %d, want 429 or 400: %s", resp.StatusCode, body)
	}
	// A single request still works, and the refused batch did not spend the budget.
	if resp := rawPost(t, ts.URL, listToolsBody, mcpHeaders(tok)); resp.StatusCode != http.StatusOK {
		t.Fatalf("single request after the refused batch: %d", resp.StatusCode)
	}
}

// gateCatalog has one function that reports who entered it and blocks
// until releaseOne lets one call through (all are let through when the
// test ends).
func gateCatalog(t *testing.T) (cat *catalog.Catalog, entered chan string, releaseOne func()) {
	t.Helper()
	cat, err := catalog.New("gate", nil)
	if err != nil {
		t.Fatal(err)
	}
	entered, gate, done := make(chan string, 16), make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(done) })
	catalog.MustAdd(cat, catalog.Func[struct{}, bool]{
		Name: "wait", Description: "Blocks until the test releases it.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, _ struct{}) (bool, error) {
			p, _ := catalog.PrincipalFrom(ctx)
			entered <- p.Subject
			select {
			case <-gate:
				return true, nil
			case <-done:
				return true, nil
			case <-ctx.Done():
				return false, ctx.Err()
			}
		},
	})
	return cat, entered, func() { gate <- struct{}{} }
}

// TestOnePrincipalCannotHoldEveryWorker: while one principal's scripts
// hold every worker, another principal's execution starts at once on the
// worker kept in reserve for principals with nothing running; and when a
// worker frees, it goes to the waiting principal with the fewest
// executions running. Before, the pool served waiters first come first
// served, so a user who started many long scripts at once (well within the
// rate limit's burst) held every worker until all of them had ended, and
// everyone else waited; fair order alone still made them wait for one
// script to end, up to a whole timeout.
func TestOnePrincipalCannotHoldEveryWorker(t *testing.T) {
	cat, entered, releaseOne := gateCatalog(t)
	ts := startServerFor(t, cat, nil) // two workers
	alice := ts.connect(t, ts.token("alice"), nil)
	bob := ts.connect(t, ts.token("bob"), nil)
	carol := ts.connect(t, ts.token("carol"), nil)

	results := make(chan *mcp.CallToolResult, 8)
	call := func(cs *mcp.ClientSession) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": "return await gate.wait()"}})
		if err != nil {
			t.Error(err)
		}
		results <- res
	}
	// Alone, alice may use both workers.
	for range 4 {
		go call(alice)
	}
	for range 2 {
		if who := <-entered; who != "alice" {
			t.Fatalf("entry by %q", who)
		}
	}
	waitQueued(t, ts.Server, 2)
	go call(bob)
	if who := <-entered; who != "bob" { // no release: the reserve
		t.Fatalf("entry by %q, want bob on the reserved worker", who)
	}
	go call(carol)
	waitQueued(t, ts.Server, 3) // the reserve is taken: carol queues after alice's two
	releaseOne()
	if who := <-entered; who != "carol" {
		t.Fatalf("a freed worker went to alice's third script while carol waited (entry by %q)", who)
	}
	for range 5 {
		releaseOne()
	}
	for range 6 {
		if res := <-results; res == nil || res.IsError {
			t.Fatalf("execution failed: %+v", res)
		}
	}
}

// waitQueued waits until n executions wait for a worker.
func waitQueued(t *testing.T, s *codemode.Server, n int) {
	t.Helper()
	for i := 0; codemode.QueuedExecutions(s) != n; i++ {
		if i == 10000 {
			t.Fatalf("%d executions queued, want %d", codemode.QueuedExecutions(s), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWaitingExecutionsBoundedPerPrincipal: each waiting execution holds a
// request and its connection, and the rate limit admits new ones faster
// than long scripts end, so one principal's queue must be bounded: past it
// an execution is refused at once with a message saying why.
func TestWaitingExecutionsBoundedPerPrincipal(t *testing.T) {
	cat, entered, releaseOne := gateCatalog(t)
	ts := startServerFor(t, cat, func(o *codemode.Options) { o.RateLimits.RateBurst = 100 }) // two workers: at most 8 waiting
	alice := ts.connect(t, ts.token("alice"), nil)
	results := make(chan *mcp.CallToolResult, 16)
	call := func() {
		res, err := alice.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": "return await gate.wait()"}})
		if err != nil {
			t.Error(err)
		}
		results <- res
	}
	for range 2 {
		go call()
		<-entered
	}
	for i := range 8 {
		go call()
		waitQueued(t, ts.Server, i+1)
	}
	go call()
	refused := <-results
	if refused == nil || !refused.IsError || !strings.Contains(text(refused), "BUSY") || !strings.Contains(text(refused), "8 of your executions are already waiting") {
		t.Fatalf("ninth waiting execution: %+v", refused)
	}
	// Bob is not affected by alice's full queue.
	bob := ts.connect(t, ts.token("bob"), nil)
	go func() {
		res, err := bob.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": "return await gate.wait()"}})
		if err != nil {
			t.Error(err)
		}
		results <- res
	}()
	if who := <-entered; who != "bob" { // at once, on the reserved worker
		t.Fatalf("entry by %q, want bob", who)
	}
	waitQueued(t, ts.Server, 8)
	// Each release of alice's lets one of her waiting executions in (a
	// release of bob's frees the reserve, which she may not take).
	go func() {
		for range 11 {
			releaseOne()
		}
	}()
	for range 11 {
		if res := <-results; res == nil || res.IsError {
			t.Fatalf("execution failed: %+v", res)
		}
	}
}

// TestRenderingWithinOutputLimit checks that pretty-printing cannot
// amplify a result: a 1 KB array nested 500 deep used to be indented
// into megabytes of response text.
func TestRenderingWithinOutputLimit(t *testing.T) {
	ts := startServer(t, nil)
	cs := ts.connect(t, ts.token("alice"), nil)
	res := run(t, cs, "let v: any = 1; for (let i = 0; i < 500; i++) v = [v]; return v;")
	if res.IsError {
		t.Fatalf("failed: %s", text(res))
	}
	if n := len(text(res)); n > 4<<10 {
		t.Fatalf("a 1 KB result was rendered as %d bytes of text", n)
	}
	// A small flat result is still pretty-printed.
	res = run(t, cs, `return { a: 1, b: [1, 2] };`)
	if !strings.Contains(text(res), "\n  \"a\": 1") {
		t.Errorf("a small result is not indented: %q", text(res))
	}
}
