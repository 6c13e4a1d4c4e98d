package codemode_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

// blocker is a catalog whose wait function blocks until its context ends
// or release is closed, handing the test its context first.
type blocker struct {
	cat     *catalog.Catalog
	running chan context.Context // one per wait call, when it starts
	stopped chan error           // ctx.Err() of a wait call its context ended
	release chan struct{}        // closing it makes every wait return 1
	started chan struct{}        // one per execution, when it starts
	ended   chan codemode.AuditEvent
}

func newBlocker(t *testing.T) *blocker {
	t.Helper()
	b := &blocker{
		running: make(chan context.Context, 4),
		stopped: make(chan error, 4),
		release: make(chan struct{}),
		started: make(chan struct{}, 8),
		ended:   make(chan codemode.AuditEvent, 8),
	}
	var err error
	if b.cat, err = catalog.New("slow", nil); err != nil {
		t.Fatal(err)
	}
	catalog.MustAdd(b.cat, catalog.Func[struct{}, int]{
		Name: "wait", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, _ struct{}) (int, error) {
			b.running <- ctx
			select {
			case <-ctx.Done():
				b.stopped <- ctx.Err()
				return 0, ctx.Err()
			case <-b.release:
				return 1, nil
			}
		},
	})
	catalog.MustAdd(b.cat, catalog.Func[struct{}, int]{
		Name: "ping", Tier: catalog.ReadOnly,
		Handler: func(context.Context, struct{}) (int, error) { return 1, nil },
	})
	return b
}

// configure records how executions end.
func (b *blocker) configure(o *codemode.Options) {
	o.Audit.Sink = codemode.AuditFunc(func(_ context.Context, ev codemode.AuditEvent) {
		if ev.Kind == codemode.ExecutionStarted {
			b.started <- struct{}{}
		}
		if ev.Kind == codemode.ExecutionFailed || ev.Kind == codemode.ExecutionFinished {
			b.ended <- ev
		}
	})
}

// A client of a revision that cancels by notifications/cancelled (the
// official go-sdk client forced to it) interrupts its execution, in the
// default stateless mode as in stateful mode, and its next call works.
func TestNotificationCancelsExecution(t *testing.T) {
	for _, tt := range []struct {
		name     string
		version  string
		stateful bool
	}{
		{"stateless 2025-06-18", "2025-06-18", false},
		{"stateless 2025-11-25", "2025-11-25", false},
		{"stateful 2025-06-18", "2025-06-18", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := newBlocker(t)
			ts := startServerFor(t, b.cat, func(o *codemode.Options) {
				b.configure(o)
				o.HTTP.Stateful = tt.stateful
			})
			c := mcp.NewClient(&mcp.Implementation{Name: "old-client", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
				Endpoint:   ts.URL,
				HTTPClient: mcptest.Bearer(ts.token("alice")),
			}, &mcp.ClientSessionOptions{ProtocolVersion: tt.version})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			if got := cs.InitializeResult().ProtocolVersion; got != tt.version {
				t.Fatalf("negotiated %s, want %s", got, tt.version)
			}

			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": "await slow.wait({}); while (true) {}"}})
				done <- err
			}()
			<-b.running
			cancel() // the client POSTs notifications/cancelled
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("CallTool after cancel: %v", err)
			}
			// Blocks until the execution's context ends: a notification that
			// does not reach it fails by the test timeout.
			if err := <-b.stopped; !errors.Is(err, context.Canceled) {
				t.Fatalf("host function context: %v", err)
			}
			if ev := <-b.ended; ev.Kind != codemode.ExecutionFailed || ev.ErrorKind != "CANCELLED" || ev.Subject != "alice" {
				t.Fatalf("execution ended with %s %s (subject %q), want failed CANCELLED", ev.Kind, ev.ErrorKind, ev.Subject)
			}

			// Stateless, the registry cancelled it; stateful, go-sdk did.
			if n, want := codemode.CancelledCalls(ts.Server), map[bool]int64{false: 1, true: 0}[tt.stateful]; n != want {
				t.Fatalf("registry cancelled %d calls, want %d", n, want)
			}

			res := run(t, cs, "return await slow.ping({})")
			if res.IsError || string(structuredOf(t, res).Result) != "1" {
				t.Fatalf("next call: %s", text(res))
			}
			<-b.ended

			// Every HTTP request has ended: nothing is left in the registry.
			cs.Close()
			ts.hs.HTTP.Close()
			if n := codemode.InFlightCalls(ts.Server); n != 0 {
				t.Fatalf("%d calls left in the cancellation registry", n)
			}
		})
	}
}

// rawCall starts a 2025-06-18 tools/call with id in the background and
// returns its response body once it is answered.
func rawCall(t *testing.T, url, token, id, code string) <-chan string {
	t.Helper()
	out := make(chan string, 1)
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":`+jsonString(code)+`}}}`))
	if err != nil {
		t.Fatal(err)
	}
	setOldHeaders(req.Header, token)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		out <- string(b)
	}()
	return out
}

// cancelCall POSTs notifications/cancelled for requestID and returns the
// status; the middleware cancels before the POST is answered.
func cancelCall(t *testing.T, url, token, requestID string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+requestID+`,"reason":"user stopped it"}}`))
	if err != nil {
		t.Fatal(err)
	}
	setOldHeaders(req.Header, token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func setOldHeaders(h http.Header, token string) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Protocol-Version", "2025-06-18")
	h.Set("Authorization", "Bearer "+token)
}

func jsonString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

// Only the principal that started a call can cancel it: the same request
// id from another user, from the same user through another client, or as
// a string instead of a number cancels nothing.
func TestCancellationIsPerPrincipal(t *testing.T) {
	b := newBlocker(t)
	ts := startServerFor(t, b.cat, b.configure)
	alice := ts.token("alice")
	resp := rawCall(t, ts.URL, alice, "7", "return await slow.wait({})")
	ctx := <-b.running
	if n := codemode.InFlightCalls(ts.Server); n != 1 {
		t.Fatalf("%d calls in the registry, want 1", n)
	}

	for _, tt := range []struct {
		name, token, id string
	}{
		{"another user", ts.token("bob"), "7"},
		{"same user, another client", ts.issuer.Mint(ts.Resource, oauthmetatest.WithClaim("sub", "alice"), oauthmetatest.WithClaim("client_id", "other-client")), "7"},
		{"string id", alice, `"7"`},
		{"another id", alice, "8"},
	} {
		if code := cancelCall(t, ts.URL, tt.token, tt.id); code != http.StatusAccepted {
			t.Fatalf("%s: status %d, want 202", tt.name, code)
		}
		// The registry cancels before the POST is answered.
		if n := codemode.CancelledCalls(ts.Server); n != 0 {
			t.Fatalf("%s cancelled alice's call", tt.name)
		}
	}
	if ctx.Err() != nil {
		t.Fatal("alice's call was cancelled")
	}

	// Alice's own cancellation ends it; 7.0 is the same JSON-RPC id as 7.
	if code := cancelCall(t, ts.URL, alice, "7.0"); code != http.StatusAccepted {
		t.Fatalf("status %d, want 202", code)
	}
	if n := codemode.CancelledCalls(ts.Server); n != 1 {
		t.Fatalf("%d calls cancelled, want 1", n)
	}
	if err := <-b.stopped; !errors.Is(err, context.Canceled) {
		t.Fatalf("host function context: %v", err)
	}
	if ev := <-b.ended; ev.ErrorKind != "CANCELLED" {
		t.Fatalf("execution ended with %s %s", ev.Kind, ev.ErrorKind)
	}
	// go-sdk still answers the call's POST (it must be answered); the
	// client that cancelled ignores it, as the spec says it should.
	if body := <-resp; !strings.Contains(body, `"id":7`) || !strings.Contains(body, "CANCELLED") {
		t.Fatalf("response to the cancelled call: %s", body)
	}
	ts.hs.HTTP.Close()
	if n := codemode.InFlightCalls(ts.Server); n != 0 {
		t.Fatalf("%d calls left in the registry", n)
	}
}

// Two calls of one principal with the same id (two client sessions whose
// counters met) make a cancellation ambiguous: it cancels neither.
func TestAmbiguousCancellationCancelsNothing(t *testing.T) {
	b := newBlocker(t)
	ts := startServerFor(t, b.cat, b.configure)
	alice := ts.token("alice")
	r1 := rawCall(t, ts.URL, alice, "9", "return await slow.wait({})")
	r2 := rawCall(t, ts.URL, alice, "9", "return await slow.wait({})")
	<-b.running
	// The second call may be queued behind the first (one principal does
	// not get every worker); it is registered as soon as its POST arrives.
	for codemode.InFlightCalls(ts.Server) < 2 {
		time.Sleep(time.Millisecond)
	}
	if code := cancelCall(t, ts.URL, alice, "9"); code != http.StatusAccepted {
		t.Fatalf("status %d, want 202", code)
	}
	if n := codemode.CancelledCalls(ts.Server); n != 0 {
		t.Fatal("an ambiguous cancellation cancelled a call")
	}
	close(b.release)
	for _, r := range []<-chan string{r1, r2} {
		if body := <-r; !strings.Contains(body, `"result":1`) {
			t.Fatalf("response: %s", body)
		}
	}
	ts.hs.HTTP.Close()
	if n := codemode.InFlightCalls(ts.Server); n != 0 {
		t.Fatalf("%d calls left in the registry", n)
	}
}

// A script in a tight loop never yields to a host call; the notification
// still interrupts it (without the registry it would run to TIMEOUT).
func TestNotificationInterruptsTightLoop(t *testing.T) {
	b := newBlocker(t)
	ts := startServerFor(t, b.cat, b.configure)
	alice := ts.token("alice")
	resp := rawCall(t, ts.URL, alice, `"loop-1"`, "while (true) {}")
	<-b.started
	if code := cancelCall(t, ts.URL, alice, `"loop-1"`); code != http.StatusAccepted {
		t.Fatalf("status %d, want 202", code)
	}
	if ev := <-b.ended; ev.Kind != codemode.ExecutionFailed || ev.ErrorKind != "CANCELLED" {
		t.Fatalf("execution ended with %s %s, want failed CANCELLED", ev.Kind, ev.ErrorKind)
	}
	if body := <-resp; !strings.Contains(body, "CANCELLED") {
		t.Fatalf("response: %s", body)
	}
}
