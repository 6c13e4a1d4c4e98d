package codemode_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/tsclienttest"
	"github.com/brakinglab/codemode-go/saved"
)

// tsSaved is what ts-saved.mjs reports.
type tsSaved struct {
	Asked   []string
	Changed int
	Steps   []struct {
		Tools []struct {
			Name        string
			Description string
			InputSchema json.RawMessage
			Annotations struct {
				ReadOnlyHint    bool
				DestructiveHint *bool
			}
		}
		IsError       bool
		ProtocolError bool
		Result        json.RawMessage
		Text          string
	}
}

// runTSSteps runs testdata/ts-saved.mjs, the official TypeScript client on
// its default protocol revision accepting every question, as subject over
// stdio (served by ts.ServeIO) or Streamable HTTP, with steps, and
// returns what it saw.
func runTSSteps(t *testing.T, ts *testServer, subject string, stdio bool, steps any) tsSaved {
	t.Helper()
	b, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	var stderr string
	if stdio {
		client := tsclienttest.Start(t, t.Context(), "testdata/ts-saved.mjs", []string{"MCP_TRANSPORT=stdio", "MCP_STEPS=" + string(b)})
		ctx, cancel := context.WithCancel(t.Context())
		served := make(chan error, 1)
		go func() { served <- ts.ServeIO(ctx, principal(subject), client.Stdout, client.Stdin) }()
		werr := client.Wait()
		cancel()
		<-served
		if werr != nil {
			t.Fatalf("client: %v\n%s", werr, client.Stderr())
		}
		stderr = client.Stderr()
	} else {
		cmd := tsclienttest.Command(t, t.Context(), "testdata/ts-saved.mjs", []string{"MCP_URL=" + ts.URL, "MCP_TOKEN=" + ts.token(subject), "MCP_STEPS=" + string(b)})
		var out strings.Builder
		cmd.Stderr = &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("client: %v\n%s", err, out.String())
		}
		stderr = out.String()
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	var got tsSaved
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("client output %q: %v", stderr, err)
	}
	return got
}

// tool returns the description of the tool name in step i's list, and
// whether it was listed.
func (r tsSaved) tool(i int, name string) (string, bool) {
	for _, tl := range r.Steps[i].Tools {
		if tl.Name == name {
			return tl.Description, true
		}
	}
	return "", false
}

// savedToolSteps save saved.weeklyReview and saved.cleanup, wait for the
// notification, list the tools and call both as tools.
var savedToolSteps = []map[string]any{
	{"list": true},
	{"code": saveReview},
	{"code": saveCancelledCleanup},
	{"waitChanged": true},
	{"list": true},
	{"tool": "saved_weeklyReview", "args": map[string]any{"status": "cancelled"}},
	{"tool": "saved_weeklyReview", "args": map[string]any{"status": 3}},
	{"tool": "saved_cleanup", "args": map[string]any{"status": "cancelled"}},
	{"tool": "saved_nothing", "args": map[string]any{}},
}

// The official TypeScript client, over Streamable HTTP and stdio: alice's
// save notifies her session; her tools/list then names her saved
// functions in execute_code's description and offers each as a tool with
// its schema and tier hints; calling them checks the arguments, and the
// deleting one asks once, naming it. Bob's list names none of them.
func TestSavedFunctionsTypeScriptClientTools(t *testing.T) {
	for _, stdio := range []bool{false, true} {
		name := "http"
		if stdio {
			name = "stdio"
		}
		t.Run(name, func(t *testing.T) {
			lib := saved.New(&saved.Options{Tools: true})
			ts, b := startApprovals(t, func(o *codemode.Options) { o.Saved = lib })
			b.add("alice", "Spa", "cancelled")
			b.add("alice", "Imola", "planned")
			got := runTSSteps(t, ts, "alice", stdio, savedToolSteps)
			s := got.Steps
			if d, _ := got.tool(0, codemode.ToolName); strings.Contains(d, "saved.weeklyReview") {
				t.Errorf("before saving, the description names it")
			}
			if _, ok := got.tool(0, "saved_weeklyReview"); ok {
				t.Errorf("before saving, the tool is listed")
			}
			if s[1].IsError || s[2].IsError {
				t.Fatalf("saves: %s / %s", s[1].Text, s[2].Text)
			}
			if d, _ := got.tool(4, codemode.ToolName); !strings.Contains(d, "saved.weeklyReview (READ-ONLY, version 1): Counts the races of one status.") || !strings.Contains(d, "saved.cleanup (MUTATING, version 1)") {
				t.Errorf("the description after saving: %s", d)
			}
			for _, tl := range s[4].Tools {
				switch tl.Name {
				case "saved_weeklyReview":
					if !tl.Annotations.ReadOnlyHint || tl.Annotations.DestructiveHint == nil || *tl.Annotations.DestructiveHint || !strings.Contains(string(tl.InputSchema), `"required":["status"]`) || !strings.Contains(tl.Description, "Counts the races") {
						t.Errorf("saved_weeklyReview: %+v %s", tl.Annotations, tl.InputSchema)
					}
				case "saved_cleanup":
					if tl.Annotations.ReadOnlyHint || tl.Annotations.DestructiveHint == nil || !*tl.Annotations.DestructiveHint {
						t.Errorf("saved_cleanup: %+v", tl.Annotations)
					}
				}
			}
			if s[5].IsError || string(s[5].Result) != "1" {
				t.Errorf("good arguments: %s", s[5].Text)
			}
			if !s[6].IsError || !strings.Contains(s[6].Text, "status") {
				t.Errorf("bad arguments: %s", s[6].Text)
			}
			if s[7].IsError || string(s[7].Result) != "1" || len(b.deleted("alice")) != 1 {
				t.Errorf("cleanup: %s (deleted %v)", s[7].Text, b.deleted("alice"))
			}
			if len(got.Asked) != 1 || !strings.Contains(got.Asked[0], "called by saved.cleanup version 1") {
				t.Errorf("asked %q", got.Asked)
			}
			if !s[8].ProtocolError || !strings.Contains(s[8].Text, `unknown tool "saved_nothing"`) {
				t.Errorf("a missing one: %s", s[8].Text)
			}
			// The calls as tools ran through execute_code and were audited
			// as its executions are.
			from := 0
			for _, ev := range ts.audit.all() {
				if ev.Function == "races.deleteRace" && ev.From == "saved.cleanup version 1" && ev.Tool == codemode.ToolName {
					from++
				}
			}
			if from != 1 {
				t.Errorf("%d audited deletions from saved.cleanup", from)
			}

			// Bob sees none of alice's.
			bob := ts.connectAt(t, ts.token("bob"), "2026-07-28", nil)
			lt, err := bob.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tl := range lt.Tools {
				if strings.HasPrefix(tl.Name, "saved_") || strings.Contains(tl.Description, "saved.weeklyReview") {
					t.Errorf("bob lists %s: %s", tl.Name, tl.Description)
				}
			}
		})
	}
}

// In every discovery mode, alice's tools/list names her saved functions
// in execute_code's description and bob's does not; without the Tools
// option no saved function is a tool, and a call by such a name is an
// unknown tool.
func TestSavedFunctionsNamedInTheDescription(t *testing.T) {
	for _, mode := range []codemode.Discovery{codemode.DiscoveryAuto, codemode.DiscoveryIndex, codemode.DiscoveryFull} {
		t.Run(mode.String(), func(t *testing.T) {
			ts, _ := startApprovals(t, func(o *codemode.Options) { o.Saved = saved.New(nil); o.Discovery = mode; o.ReadOnlyTool = true })
			alice := ts.connectAt(t, ts.token("alice"), "2026-07-28", nil)
			if res := run(t, alice, saveReview); res.IsError {
				t.Fatal(text(res))
			}
			if res := run(t, alice, saveCancelledCleanup); res.IsError {
				t.Fatal(text(res))
			}
			describe := func(cs *mcp.ClientSession) map[string]string {
				lt, err := cs.ListTools(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				if lt.CacheScope != "private" {
					t.Errorf("a list per principal is cacheable %q", lt.CacheScope)
				}
				out := map[string]string{}
				for _, tl := range lt.Tools {
					out[tl.Name] = tl.Description
				}
				return out
			}
			a := describe(alice)
			if !strings.Contains(a[codemode.ToolName], "saved.weeklyReview (READ-ONLY") || !strings.Contains(a[codemode.ToolName], "saved.cleanup (MUTATING") {
				t.Errorf("alice's execute_code: %s", a[codemode.ToolName])
			}
			ro := a[codemode.ReadOnlyToolName]
			if !strings.Contains(ro, "saved.weeklyReview") || strings.Contains(ro, "saved.cleanup") {
				t.Errorf("alice's read-only tool names: %s", ro)
			}
			if len(a) != 2 {
				t.Errorf("alice lists %d tools", len(a))
			}
			bob := ts.connectAt(t, ts.token("bob"), "2026-07-28", nil)
			if d := describe(bob)[codemode.ToolName]; strings.Contains(d, "saved.weeklyReview") || d != strings.TrimSpace(ts.ToolDescription()) && d != ts.ToolDescription() {
				t.Errorf("bob's execute_code is not the shared description")
			}
			_, err := alice.CallTool(context.Background(), &mcp.CallToolParams{Name: "saved_weeklyReview", Arguments: map[string]any{"status": "x"}})
			if err == nil || !strings.Contains(err.Error(), "unknown tool") {
				t.Errorf("a saved function's tool without the option: %v", err)
			}
		})
	}
}

// A go-sdk client on 2026-07-28 (asked through an input-required result,
// then the same tools/call again) and on a 2025-11-25 session calls a
// deleting saved function as a tool: asked once, naming it; one deletion.
func TestSavedFunctionToolAsksOnce(t *testing.T) {
	for _, rv := range replayRevisions {
		t.Run(rv.name, func(t *testing.T) {
			lib := saved.New(&saved.Options{Tools: true})
			ts, b := startApprovals(t, func(o *codemode.Options) { o.Saved = lib; o.HTTP.Stateful = rv.stateful })
			b.add("alice", "Spa", "cancelled")
			e := &elicitor{action: always("accept")}
			cs := ts.connectRev(t, rv.stdio, rv.version, &mcp.ClientOptions{ElicitationHandler: e.handle})
			if res := run(t, cs, saveCancelledCleanup); res.IsError {
				t.Fatal(text(res))
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "saved_cleanup", Arguments: map[string]any{"status": "cancelled"}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || value(res) != "1" {
				t.Fatalf("call: %s", text(res))
			}
			if asked := e.asked(); len(asked) != 1 || !strings.Contains(asked[0], "called by saved.cleanup version 1") {
				t.Fatalf("asked %q", asked)
			}
			if d := b.deleted("alice"); len(d) != 1 {
				t.Fatalf("deleted %v", d)
			}
		})
	}
}

// A call of a saved function's tool is an execution: the execution limit
// counts it as it counts execute_code.
func TestSavedFunctionToolsAreRateLimited(t *testing.T) {
	lib := saved.New(&saved.Options{Tools: true})
	ts, _ := startApprovals(t, func(o *codemode.Options) {
		o.Saved = lib
		o.RateLimits.RatePerSecond, o.RateLimits.RateBurst = 0.001, 3
	})
	if _, err := lib.Save(context.Background(), saved.NewEnv("alice", nil, false), saved.Draft{Name: "one", Description: "One.", Code: "return 1", Input: json.RawMessage(`{"type":"object"}`)}); err != nil {
		t.Fatal(err)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"saved_one","arguments":{}}}`
	if at := firstRefusal(t, ts.URL, body, ts.token("alice"), "saved_one"); at != 4 {
		t.Fatalf("first refusal at call %d, want 4 (a burst of 3)", at)
	}
}
