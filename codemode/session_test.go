package codemode_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/logtest"
)

func TestProgressNotifications(t *testing.T) {
	ts := startServer(t, nil)
	got := make(chan string, 100)
	cs := ts.connect(t, ts.token("alice", allScopes...), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			got <- fmt.Sprintf("%v %s %v/%v", req.Params.ProgressToken, req.Params.Message, req.Params.Progress, req.Params.Total)
		},
	})
	// Without a progress token, nothing is sent.
	run(t, cs, coachingTS)

	params := &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": coachingTS}}
	params.SetProgressToken("coach-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("%v %s", err, text(res))
	}
	// The server writes the notifications on the call's stream before the
	// result; the client dispatches them on its own goroutine, so wait.
	for _, want := range []string{
		"coach-1 brakinglab.getSessions (1/20) 1/20",
		"coach-1 brakinglab.getWeakCorners (2/20) 2/20",
		"coach-1 brakinglab.getBrakingZones (3/20) 3/20",
		"coach-1 brakinglab.saveCoachingReport (4/20) 4/20",
	} {
		select {
		case msg := <-got:
			if msg != want {
				t.Fatalf("progress %q, want %q", msg, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no progress notification %q", want)
		}
	}
}

func TestClientCancellationInterruptsExecution(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) { testCancellation(t, transport) })
	}
}

func testCancellation(t *testing.T, transport string) {
	started, stopped := make(chan struct{}), make(chan error, 1)
	cat, err := catalog.New("slow", &catalog.Options{AllowAnonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	catalog.MustAdd(cat, catalog.Func[struct{}, int]{
		Name: "wait", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, _ struct{}) (int, error) {
			close(started)
			<-ctx.Done()
			stopped <- ctx.Err()
			return 0, ctx.Err()
		},
	})
	ended := make(chan codemode.AuditEvent, 1)
	configure := func(o *codemode.Options) {
		o.Auth = nil
		o.Audit.Sink = codemode.AuditFunc(func(_ context.Context, ev codemode.AuditEvent) {
			if ev.Kind == codemode.ExecutionFailed || ev.Kind == codemode.ExecutionFinished {
				ended <- ev
			}
		})
	}
	var cs *mcp.ClientSession
	if transport == "http" {
		cs = startServerFor(t, cat, configure).connect(t, "", nil)
	} else {
		var o codemode.Options
		configure(&o)
		srv := newServer(t, cat, &o)
		st, ct := mcp.NewInMemoryTransports()
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() { served <- srv.ServeTransport(ctx, principal("local"), st) }()
		t.Cleanup(func() { cancel(); <-served })
		cs, err = mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": "await slow.wait({}); while (true) {}"}})
		done <- err
	}()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool after cancel: %v", err)
	}
	// Blocks until the server-side context ends: a cancellation that did
	// not reach the execution fails by the test timeout.
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Fatalf("host function context: %v", err)
	}
	if ev := <-ended; ev.Kind != codemode.ExecutionFailed || ev.ErrorKind != "CANCELLED" {
		t.Fatalf("execution ended with %s %s, want failed CANCELLED", ev.Kind, ev.ErrorKind)
	}
}

func TestStdioRoundTrip(t *testing.T) {
	tc := newTestCatalog(t)
	srv := newServer(t, tc, &codemode.Options{Audit: codemode.AuditOptions{Sink: &auditRecorder{}}})
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- srv.ServeIO(ctx, principal("local-user", allScopes...), sr, sw) }()

	c := mcp.NewClient(&mcp.Implementation{Name: "stdio-client", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, cs, coachingTS)
	if res.IsError || !jsonEqual(structuredOf(t, res).Result, `{"reportId":"r1","corners":5}`) {
		t.Fatalf("result: %s", text(res))
	}
	if got := tc.lastUser.Load(); got != "local-user" {
		t.Fatalf("subject %v, want local-user", got)
	}
	cs.Close()
	if err := <-served; err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) && !errors.Is(err, context.Canceled) {
		t.Fatalf("ServeIO: %v", err)
	}
}

func TestAuditEvents(t *testing.T) {
	var buf logtest.Buffer
	ts := startServer(t, func(o *codemode.Options) {
		o.Audit.Sink = codemode.NewSlogAudit(slog.New(slog.NewJSONHandler(&buf, nil)))
	})
	cs := ts.connect(t, ts.token("alice", allScopes...), nil)
	run(t, cs, coachingTS)
	run(t, cs, "await brakinglab.getBrakingZones({sessionId: 'missing'})")

	var events []map[string]any
	sc := bufio.NewScanner(strings.NewReader(buf.String()))
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		events = append(events, ev)
	}
	var kinds []string
	for _, ev := range events {
		kinds = append(kinds, ev["event"].(string))
	}
	want := "execution.started function.called function.called function.called function.called execution.finished execution.started function.called execution.failed"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("events %q\nwant   %q", kinds, want)
	}
	sum := sha256.Sum256([]byte(coachingTS))
	trace := events[0]["traceId"]
	for i, ev := range events[:6] {
		if ev["traceId"] != trace || ev["subject"] != "alice" || ev["codeSha256"] != hex.EncodeToString(sum[:]) || ev["tool"] != codemode.ToolName {
			t.Errorf("event %d: %v", i, ev)
		}
	}
	if events[6]["traceId"] == trace {
		t.Error("two executions share a trace id")
	}
	call := events[1]
	if call["function"] != "brakinglab.getSessions" || call["tier"] != "READ-ONLY" || call["resultBytes"].(float64) == 0 {
		t.Errorf("function event %v", call)
	}
	// Keys and sizes of the arguments, never their values.
	if args, _ := call["args"].(map[string]any); len(args) != 2 || args["trackName"] != float64(len(`"Spa"`)) || args["limit"] != float64(1) {
		t.Errorf("args %v", call["args"])
	}
	if fin := events[5]; fin["calls"] != float64(4) || fin["durationMs"] == nil {
		t.Errorf("finished %v", fin)
	}
	if events[7]["errorKind"] != "not_found" || events[8]["errorKind"] != "RUNTIME" {
		t.Errorf("error kinds %v / %v", events[7], events[8])
	}
	// Never the code, never result data.
	for _, secret := range []string{"La Source", "Porsche", "Spa\"", "weak.map", "trail braking"} {
		if strings.Contains(buf.String(), secret) {
			t.Errorf("audit log contains %q", secret)
		}
	}
}

// Concurrent calls (Promise.all) still report progress that only grows.
func TestProgressIsMonotonicForConcurrentCalls(t *testing.T) {
	ts := startServer(t, nil)
	got := make(chan float64, 100)
	cs := ts.connect(t, ts.token("alice", allScopes...), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			got <- req.Params.Progress
		},
	})
	params := &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": "return (await Promise.all(Array.from({length: 12}, () => brakinglab.getSessions({limit: 1})))).length"}}
	params.SetProgressToken(7)
	if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
		t.Fatalf("%v %s", err, text(res))
	}
	// The first ProgressBurst calls are notified at once, in order; the
	// rest of a burst this fast is over the rate limit.
	for want := 1.0; want <= codemode.ProgressBurst; want++ {
		select {
		case p := <-got:
			if p != want {
				t.Fatalf("progress %v, want %v", p, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no progress %v", want)
		}
	}
}
