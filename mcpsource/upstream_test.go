package mcpsource_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/golden"
	"github.com/brakinglab/codemode-go/mcpsource"
	"github.com/brakinglab/codemode-go/typegen"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func newCatalog(t testing.TB, ns string) *catalog.Catalog {
	t.Helper()
	c, err := catalog.New(ns, &catalog.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var alice = catalog.WithPrincipal(context.Background(), catalog.Principal{Subject: "alice"})

// connect starts an upstream for the test and closes it at the end.
func connect(t testing.TB, c *catalog.Catalog, opts *mcpsource.Options) *mcpsource.Upstream {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	u, err := mcpsource.Connect(context.Background(), c, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	return u
}

// memoryServer returns the Command of the reference memory server storing
// its graph in a temporary file, and a function giving the last process
// started.
func memoryServer(t testing.TB) (func() *exec.Cmd, func() *os.Process) {
	bin, script := node(t, "server-memory")
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	var (
		mu   sync.Mutex
		last *exec.Cmd
	)
	return func() *exec.Cmd {
			cmd := exec.Command(bin, script)
			cmd.Env = append(os.Environ(), "MEMORY_FILE_PATH="+file)
			mu.Lock()
			last = cmd
			mu.Unlock()
			return cmd
		}, func() *os.Process {
			mu.Lock()
			defer mu.Unlock()
			return last.Process
		}
}

func call(t testing.TB, c *catalog.Catalog, name, args string) (string, error) {
	t.Helper()
	out, err := c.Call(alice, name, json.RawMessage(args))
	return string(out), err
}

func mustCall(t testing.TB, c *catalog.Catalog, name, args string) string {
	t.Helper()
	out, err := call(t, c, name, args)
	if err != nil {
		t.Fatalf("%s(%s): %v", name, args, err)
	}
	return out
}

// fakeCommand starts this test binary as the fake stdio server
// (fakeUpstream).
func fakeCommand() *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "MCPSOURCE_FAKE_UPSTREAM=1")
	return cmd
}

// fakeLogging is fakeCommand with the log its forget and remember tools
// append to: the file at the returned path, which exists only once one
// of them ran.
func fakeLogging(t testing.TB) (cmd func() *exec.Cmd, log string) {
	log = filepath.Join(t.TempDir(), "calls.log")
	return func() *exec.Cmd {
		cmd := fakeCommand()
		cmd.Env = append(cmd.Env, "MCPSOURCE_FAKE_LOG="+log)
		return cmd
	}, log
}

// wantCode checks err's code and that its message contains want.
func wantCode(t testing.TB, err error, code, want string) {
	t.Helper()
	if catalog.CodeOf(err) != code || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v (code %q), want code %q containing %q", err, catalog.CodeOf(err), code, want)
	}
}

// The reference memory server over stdio: its nine tools become functions
// with tiers from their annotations, and calls return its structured
// results.
func TestMemoryServer(t *testing.T) {
	cmd, _ := memoryServer(t)
	c := newCatalog(t, "memory")
	u := connect(t, c, &mcpsource.Options{Command: cmd})
	if s := u.Skipped(); len(s) != 0 {
		t.Fatalf("skipped: %v", s)
	}
	tiers := map[string]string{}
	for _, f := range c.Functions() {
		tiers[f.Name] = f.Tier.String() + "/" + f.Approval.String()
	}
	want := map[string]string{
		"create_entities": "CREATIVE/default", "create_relations": "CREATIVE/default", "add_observations": "CREATIVE/default",
		"delete_entities": "MUTATING/required", "delete_observations": "MUTATING/required", "delete_relations": "MUTATING/required",
		"read_graph": "READ-ONLY/default", "search_nodes": "READ-ONLY/default", "open_nodes": "READ-ONLY/default",
	}
	if len(tiers) != len(want) {
		t.Fatalf("functions %v, want %v", tiers, want)
	}
	for n, w := range want {
		if tiers[n] != w {
			t.Errorf("%s: %s, want %s", n, tiers[n], w)
		}
	}

	// Declarations come from the tools' schemas, results typed by their
	// outputSchema.
	decl, err := typegen.Generate(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "memory.d.ts.golden"), []byte(decl))

	out := mustCall(t, c, "create_entities", `{"entities":[{"name":"Monza","entityType":"track","observations":["fast"]}]}`)
	if !strings.Contains(out, `"name":"Monza"`) {
		t.Fatalf("create_entities: %s", out)
	}
	var graph struct {
		Entities []struct {
			Name         string   `json:"name"`
			Observations []string `json:"observations"`
		} `json:"entities"`
	}
	if err := json.Unmarshal([]byte(mustCall(t, c, "read_graph", `{}`)), &graph); err != nil {
		t.Fatal(err)
	}
	if len(graph.Entities) != 1 || graph.Entities[0].Name != "Monza" || graph.Entities[0].Observations[0] != "fast" {
		t.Fatalf("read_graph: %+v", graph)
	}
	// The catalogue validates against the tool's schema before the server
	// sees the call, and a dry run reaches no server.
	_, err = call(t, c, "create_entities", `{"entities":[{"name":"Spa"}]}`)
	wantCode(t, err, catalog.CodeValidation, "Validation failed")
	if out := mustCall(t, c, "create_entities", `{"entities":[{"name":"Spa","entityType":"track","observations":[]}],"_validateOnly":true}`); out != `{"valid":true}` {
		t.Fatalf("dry run: %s", out)
	}
	if out := mustCall(t, c, "search_nodes", `{"query":"Spa"}`); strings.Contains(out, "Spa") {
		t.Fatalf("the dry run created Spa: %s", out)
	}
}

// A killed server process fails the calls made while it is down with a
// typed error and is restarted; its data (kept in its file) is served
// again.
func TestCrashAndRestart(t *testing.T) {
	cmd, proc := memoryServer(t)
	c := newCatalog(t, "memory")
	u := connect(t, c, &mcpsource.Options{Command: cmd, MinBackoff: 200 * time.Millisecond})
	mustCall(t, c, "create_entities", `{"entities":[{"name":"Imola","entityType":"track","observations":[]}]}`)
	first := proc()
	if err := first.Kill(); err != nil {
		t.Fatal(err)
	}
	sawDown := false
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, err := call(t, c, "open_nodes", `{"names":["Imola"]}`)
		if err == nil {
			if !strings.Contains(out, "Imola") {
				t.Fatalf("after restart: %s", out)
			}
			break
		}
		if catalog.CodeOf(err) != catalog.CodeUpstream {
			t.Fatalf("while down: %v (code %s)", err, catalog.CodeOf(err))
		}
		sawDown = true
		if time.Now().After(deadline) {
			t.Fatalf("not restarted: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !sawDown {
		t.Error("no call saw the server down")
	}
	second := proc()
	if second.Pid == first.Pid {
		t.Error("the same process serves after the kill")
	}
	// Close stops the process and removes the functions.
	if err := u.Close(); err != nil {
		t.Logf("Close: %v", err) // a process stopped by a signal reports it
	}
	if fs := c.Functions(); len(fs) != 0 {
		t.Errorf("after Close: %v", fs)
	}
	waitFor(t, func() bool { return second.Signal(syscall.Signal(0)) != nil })
}

// The misbehaving fake server: a garbled answer, a result that is not MCP,
// an oversized result and one over the transport's message limit each
// fail their call with code upstream; the
// tool whose schema does not compile is left out with its reason, and the
// rest are served.
func TestMisbehavingUpstream(t *testing.T) {
	c := newCatalog(t, "fake")
	u := connect(t, c, &mcpsource.Options{
		Command:        fakeCommand,
		MaxResultBytes: 1 << 20,
		// go-sdk reads the 17 MiB answer for several seconds
		// under the race detector before it gives up.
		CallTimeout: time.Minute,
		MinBackoff:  10 * time.Millisecond,
	})
	sk := u.Skipped()
	if len(sk) != 1 || sk[0].Tool != "badschema" || !strings.Contains(sk[0].Reason, "nowhere") {
		t.Fatalf("skipped: %+v", sk)
	}
	if out := mustCall(t, c, "ok", `{}`); out != `"fine"` {
		t.Fatalf("ok: %s", out)
	}
	_, err := call(t, c, "huge", `{}`)
	wantCode(t, err, catalog.CodeUpstream, "more than the 1048576")
	// An answer over go-sdk's 16 MiB message limit ends the session, and
	// with it every call waiting on it: the error says why, and to ask
	// for less or else retry, since a call cannot tell whose answer it was.
	hung := make(chan error, 1)
	go func() { _, err := call(t, c, "hang", `{}`); hung <- err }()
	time.Sleep(200 * time.Millisecond) // hang is in flight on the session
	_, err = call(t, c, "giant", `{}`)
	const tooLarge = "the fake server sent an answer larger than one message may be (16 MiB over stdio), so its session was ended and is being restarted. If this call asks for much data, ask for less; otherwise retry in a few seconds"
	wantCode(t, err, catalog.CodeUpstream, "fake.giant: "+tooLarge)
	wantCode(t, <-hung, catalog.CodeUpstream, "fake.hang: "+tooLarge)
	waitFor(t, func() bool { _, err := call(t, c, "ok", `{}`); return err == nil })
	_, err = call(t, c, "wrongshape", `{}`)
	wantCode(t, err, catalog.CodeUpstream, "not valid MCP")
	_, err = call(t, c, "refuse", `{}`)
	wantCode(t, err, catalog.CodeUpstream, "the fake server refused the call: refuse is switched off")
	_, err = call(t, c, "garbled", `{}`)
	wantCode(t, err, catalog.CodeUpstream, "the fake server")
	// The server is restarted and serves again.
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, err := call(t, c, "ok", `{}`)
		if err == nil && out == `"fine"` {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ok after garbled: %s %v", out, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A call that may write, once sent, never fails as if it did nothing:
// when the upstream does not answer in time, the execution ends while
// it is in flight, or its answer cannot be passed on, the error is
// outcome_unknown and says to check before calling again, not to retry.
// A read-only call keeps "retry", and a refusal is a refusal either way.
func TestUnansweredWriteOutcomeUnknown(t *testing.T) {
	c := newCatalog(t, "fake")
	connect(t, c, &mcpsource.Options{
		Command:        fakeCommand,
		MaxResultBytes: 1 << 20,
		CallTimeout:    time.Second,
	})
	const unknown = "The call was sent, so it may have taken effect: check its effect (read it back) before calling "
	_, err := call(t, c, "hangwrite", `{}`)
	wantCode(t, err, catalog.CodeOutcomeUnknown, "fake.hangwrite: the fake server did not answer within 1s. "+unknown+"fake.hangwrite again.")
	_, err = call(t, c, "hang", `{}`)
	wantCode(t, err, catalog.CodeUpstream, "did not answer within 1s; retry later")

	ctx, cancel := context.WithTimeout(alice, 200*time.Millisecond)
	defer cancel()
	_, err = c.Call(ctx, "hangwrite", json.RawMessage(`{}`))
	wantCode(t, err, catalog.CodeOutcomeUnknown, "fake.hangwrite: the execution ended while the call was in flight. "+unknown)

	// The answers that follow come at once: a session of their own with a
	// minute to answer, so that a loaded machine cannot turn a large
	// answer into the 1 s timeout above.
	c = newCatalog(t, "fake")
	connect(t, c, &mcpsource.Options{
		Command:        fakeCommand,
		MaxResultBytes: 1 << 20,
		CallTimeout:    time.Minute,
	})
	_, err = call(t, c, "hugewrite", `{}`)
	wantCode(t, err, catalog.CodeOutcomeUnknown, "more than the 1048576 this server accepts from fake; ask for less data. "+unknown)
	_, err = call(t, c, "refusewrite", `{}`)
	wantCode(t, err, catalog.CodeUpstream, "the fake server refused the call: refuse is switched off")
	if strings.Contains(err.Error(), "may have taken effect") {
		t.Fatalf("a refused write: %v", err)
	}
}

// An in-process go-sdk server that adds and removes a tool while
// connected: notifications/tools/list_changed updates the catalogue and
// its Version without a restart.
func TestListChanged(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "live", Version: "1"}, nil)
	type none struct{}
	mcp.AddTool(srv, &mcp.Tool{Name: "first", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "1"}}}, nil, nil
		})
	c := newCatalog(t, "live")
	connect(t, c, &mcpsource.Options{Server: srv})
	v0 := c.Version()
	mcp.AddTool(srv, &mcp.Tool{Name: "second", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "2"}}}, nil, nil
		})
	waitFor(t, func() bool { return has(c, "second") })
	if c.Version() == v0 {
		t.Error("Version did not change")
	}
	if out := mustCall(t, c, "second", `{}`); out != `"2"` {
		t.Fatalf("second: %s", out)
	}
	srv.RemoveTools("first")
	waitFor(t, func() bool { return !has(c, "first") })
	_, err := call(t, c, "first", `{}`)
	wantCode(t, err, catalog.CodeUnknownFunction, "unknown function live.first")
}

func has(c *catalog.Catalog, name string) bool {
	for _, f := range c.Functions() {
		if f.Name == name {
			return true
		}
	}
	return false
}

// waitFor polls cond for up to 10 seconds.
func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A slow upstream times out, fills only its own slots, and leaves another
// upstream serving.
func TestSlowUpstreamStarvesNoOther(t *testing.T) {
	type none struct{}
	release := make(chan struct{})
	slow := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	mcp.AddTool(slow, &mcp.Tool{Name: "wait", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late"}}}, nil, nil
		})
	defer close(release)
	fast := mcp.NewServer(&mcp.Implementation{Name: "fast", Version: "1"}, nil)
	mcp.AddTool(fast, &mcp.Tool{Name: "now", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "now"}}}, nil, nil
		})
	sc, fc := newCatalog(t, "slow"), newCatalog(t, "fast")
	connect(t, sc, &mcpsource.Options{Server: slow, MaxConcurrent: 1, CallTimeout: 300 * time.Millisecond})
	connect(t, fc, &mcpsource.Options{Server: fast, MaxConcurrent: 1})

	errs := make(chan error, 2)
	started := make(chan struct{})
	go func() {
		close(started)
		_, err := call(t, sc, "wait", `{}`)
		errs <- err
	}()
	<-started
	for range 20 {
		if out := mustCall(t, fc, "now", `{}`); out != `"now"` {
			t.Fatalf("fast: %s", out)
		}
	}
	go func() {
		_, err := call(t, sc, "wait", `{}`)
		errs <- err
	}()
	var got []string
	for range 2 {
		err := <-errs
		if catalog.CodeOf(err) != catalog.CodeUpstream {
			t.Fatalf("slow call: %v", err)
		}
		got = append(got, err.Error())
	}
	all := strings.Join(got, "\n")
	if !strings.Contains(all, "did not answer within 300ms") {
		t.Errorf("no timeout among %q", got)
	}
}

// Two tools whose names collide after conversion: the second is left out
// with a reason naming both.
func TestUpstreamNameCollision(t *testing.T) {
	type none struct{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "dup", Version: "1"}, nil)
	for _, n := range []string{"get-note", "get_note", "list.notes"} {
		mcp.AddTool(srv, &mcp.Tool{Name: n, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: n}}}, nil, nil
			})
	}
	c := newCatalog(t, "dup")
	u := connect(t, c, &mcpsource.Options{Server: srv})
	sk := u.Skipped()
	if len(sk) != 1 || !strings.Contains(sk[0].Reason, "get_note") {
		t.Fatalf("skipped: %+v", sk)
	}
	if out := mustCall(t, c, "list_notes", `{}`); out != `"list.notes"` {
		t.Fatalf("list_notes: %s", out)
	}
	// Naming one of them resolves it; naming a tool the server lacks is
	// an error.
	c2 := newCatalog(t, "dup")
	u2 := connect(t, c2, &mcpsource.Options{Server: srv, Tools: map[string]mcpsource.ToolConfig{"get-note": {Name: "getNote"}}})
	if len(u2.Skipped()) != 0 || !has(c2, "getNote") || !has(c2, "get_note") {
		t.Fatalf("with a name: %v %v", u2.Skipped(), c2.Functions())
	}
	_, err := mcpsource.Connect(context.Background(), newCatalog(t, "dup"), &mcpsource.Options{Server: srv, Logger: quiet,
		Tools: map[string]mcpsource.ToolConfig{"get-notes": {Skip: true}}})
	if err == nil || !strings.Contains(err.Error(), `"get-notes"`) {
		t.Fatalf("unknown tool in Options.Tools: %v", err)
	}
}

func TestConnectOptionsChecked(t *testing.T) {
	for _, o := range []*mcpsource.Options{nil, {URL: "http://x", Server: mcp.NewServer(&mcp.Implementation{Name: "x"}, nil)}, {Server: mcp.NewServer(&mcp.Implementation{Name: "x"}, nil), Header: func(context.Context) http.Header { return nil }}} {
		if _, err := mcpsource.Connect(context.Background(), newCatalog(t, "x"), o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	_, err := mcpsource.Connect(context.Background(), newCatalog(t, "x"), &mcpsource.Options{Logger: quiet, MinBackoff: time.Hour, Command: func() *exec.Cmd { return exec.Command("/nonexistent/server") }})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/server") {
		t.Fatalf("a command that cannot start: %v", err)
	}
}
