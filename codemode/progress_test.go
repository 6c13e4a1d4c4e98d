package codemode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/internal/tsclienttest"
)

// progressCode reports progress from the script and, through its
// context, from a host function.
const progressCode = `await codemode.progress(1, 4, "one");
await codemode.progress(2, 4, "two");
await ops.readLaps({ laps: 1 }); // reports 1 of 2: less than 2, dropped
await codemode.progress(4, 4, "done");
return 1;`

// What a client sees for progressCode.
var progressWant = []string{"1/4 one", "2/4 two", "4/4 done"}

// progressRecorder collects a go-sdk client's progress notifications.
type progressRecorder struct {
	mu  sync.Mutex
	got []string
}

func (r *progressRecorder) handler(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, fmt.Sprintf("%v/%v %s", req.Params.Progress, req.Params.Total, req.Params.Message))
}

// wait returns the notifications once n arrived (the client dispatches
// them on its own goroutine) or after a while.
func (r *progressRecorder) wait(n int) []string {
	for range 100 {
		r.mu.Lock()
		got := append([]string(nil), r.got...)
		r.mu.Unlock()
		if len(got) >= n {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.got...)
}

func callWithToken(t *testing.T, cs *mcp.ClientSession, code string, token any) *mcp.CallToolResult {
	t.Helper()
	params := &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": code}}
	if token != nil {
		params.SetProgressToken(token)
	}
	res, err := cs.CallTool(t.Context(), params)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestScriptAndHostProgress(t *testing.T) {
	oc := newOpsCatalog(t)
	srv := newServer(t, oc.Catalog, &codemode.Options{Audit: codemode.AuditOptions{Sink: codemode.NoAudit}})
	rec := &progressRecorder{}
	cs := mcptest.ConnectIO(t, srv, principal("local-user"), "", &mcp.ClientOptions{ProgressNotificationHandler: rec.handler})

	// Without a token nothing is sent, and the script runs the same.
	if res := callWithToken(t, cs, progressCode, nil); res.IsError {
		t.Fatal(text(res))
	}
	if n := srv.Stats().ProgressSent; n != 0 {
		t.Fatalf("%d notifications sent without a progress token", n)
	}

	if res := callWithToken(t, cs, progressCode, "p1"); res.IsError {
		t.Fatal(text(res))
	}
	if got := rec.wait(3); strings.Join(got, "|") != strings.Join(progressWant, "|") {
		t.Fatalf("progress %q, want %q", got, progressWant)
	}

	// A host function alone: the call's own notification, then its report.
	rec.got = nil
	if res := callWithToken(t, cs, `return (await ops.readLaps({ laps: 2 })).laps`, "p2"); res.IsError {
		t.Fatal(text(res))
	}
	if got, want := rec.wait(2), []string{"1/20 ops.readLaps (1/20)", "1/2 laps read"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("progress %q, want %q", got, want)
	}
}

// A script reporting in a tight loop is rate limited; its final report
// still arrives.
func TestProgressRateLimited(t *testing.T) {
	oc := newOpsCatalog(t)
	srv := newServer(t, oc.Catalog, &codemode.Options{Audit: codemode.AuditOptions{Sink: codemode.NoAudit}})
	rec := &progressRecorder{}
	cs := mcptest.ConnectIO(t, srv, principal("local-user"), "", &mcp.ClientOptions{ProgressNotificationHandler: rec.handler})
	if res := callWithToken(t, cs, `for (let i = 1; i <= 500; i++) await codemode.progress(i, 500); return 1`, "loop"); res.IsError {
		t.Fatal(text(res))
	}
	sent := int(srv.Stats().ProgressSent)
	got := rec.wait(sent)
	if sent < codemode.ProgressBurst || sent > 100 || len(got) != sent {
		t.Fatalf("%d notifications sent, %d received, want the burst of %d and few more", sent, len(got), codemode.ProgressBurst)
	}
	if last := got[len(got)-1]; last != "500/500 " {
		t.Fatalf("last progress %q, want 500/500", last)
	}
}

// Unusable arguments throw an error that says how to call it.
func TestScriptProgressArguments(t *testing.T) {
	oc := newOpsCatalog(t)
	srv := newServer(t, oc.Catalog, &codemode.Options{Audit: codemode.AuditOptions{Sink: codemode.NoAudit}})
	cs := mcptest.ConnectIO(t, srv, principal("local-user"), "", nil)
	for _, call := range []string{`codemode.progress("x")`, `codemode.progress()`, `codemode.progress(-1)`, `codemode.progress(1, 2, 3)`} {
		res := run(t, cs, "try { await "+call+"; return 'ok' } catch (e) { return e.message }")
		var msg string
		_ = json.Unmarshal(structuredOf(t, res).Result, &msg)
		if !strings.HasPrefix(msg, "codemode.progress takes (done: number") {
			t.Errorf("%s: %q", call, msg)
		}
	}
}

// tsProgress is what ts-progress.mjs reports.
type tsProgress struct {
	Progress []struct {
		Progress, Total float64
		Message         string
	}
	IsError bool
	Result  json.RawMessage
	Error   string // the error's kind
}

func (p tsProgress) lines() []string {
	var out []string
	for _, n := range p.Progress {
		out = append(out, fmt.Sprintf("%v/%v %s", n.Progress, n.Total, n.Message))
	}
	return out
}

func decodeTS(t *testing.T, stderr string) tsProgress {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	var got tsProgress
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("client output %q: %v", stderr, err)
	}
	return got
}

// The official TypeScript client's onprogress sees the script's and the
// host function's progress over Streamable HTTP.
func TestTypeScriptClientProgressHTTP(t *testing.T) {
	oc := newOpsCatalog(t)
	ts := startServerFor(t, oc.Catalog, nil)
	cmd := tsclienttest.Command(t, t.Context(), "testdata/ts-progress.mjs", []string{"MCP_URL=" + ts.URL, "MCP_TOKEN=" + ts.token("alice"), "MCP_CODE=" + progressCode})
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("client: %v\n%s", err, stderr.String())
	}
	got := decodeTS(t, stderr.String())
	if got.IsError || string(got.Result) != "1" || strings.Join(got.lines(), "|") != strings.Join(progressWant, "|") {
		t.Fatalf("client saw %+v, progress %q, want %q", got, got.lines(), progressWant)
	}
}

// The same over stdio: the Go server speaks on the client's stdin and
// stdout.
func TestTypeScriptClientProgressStdio(t *testing.T) {
	oc := newOpsCatalog(t)
	srv := newServer(t, oc.Catalog, &codemode.Options{Audit: codemode.AuditOptions{Sink: codemode.NoAudit}})
	client := tsclienttest.Start(t, t.Context(), "testdata/ts-progress.mjs", []string{"MCP_TRANSPORT=stdio", "MCP_CODE=" + progressCode})
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- srv.ServeIO(ctx, principal("local-user"), client.Stdout, client.Stdin) }()
	werr := client.Wait()
	cancel()
	<-served
	if werr != nil {
		t.Fatalf("client: %v\n%s", werr, client.Stderr())
	}
	got := decodeTS(t, client.Stderr())
	if got.IsError || string(got.Result) != "1" || strings.Join(got.lines(), "|") != strings.Join(progressWant, "|") {
		t.Fatalf("client saw %+v, progress %q, want %q", got, got.lines(), progressWant)
	}
}

// opsCatalog has a READ-ONLY function that reports progress, readLaps,
// and one that always fails, missing. internal/integration's telemetry
// tests have the same with a span per call, and check the deadline the
// host call's context carries.
type opsCatalog struct{ *catalog.Catalog }

func newOpsCatalog(t *testing.T) *opsCatalog {
	t.Helper()
	cat, err := catalog.New("ops", &catalog.Options{AllowAnonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	type laps struct {
		Laps int `json:"laps"`
	}
	catalog.MustAdd(cat, catalog.Func[laps, laps]{
		Name: "readLaps", Description: "Reads laps.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, a laps) (laps, error) {
			codemode.ReportProgress(ctx, 1, 2, "laps read")
			return a, nil
		},
	})
	catalog.MustAdd(cat, catalog.Func[laps, laps]{
		Name: "missing", Description: "Always fails.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, a laps) (laps, error) {
			return laps{}, catalog.NotFound("no lap %d", a.Laps)
		},
	})
	return &opsCatalog{cat}
}
