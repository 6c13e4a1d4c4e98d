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

// saveReview saves saved.weeklyReview for the script's principal.
const saveReview = `return await codemode.save({ name: "weeklyReview", description: "Counts the races of one status.", code: "return (await races.listRaces({ status: input.status })).length", input: { type: "object", properties: { status: { type: "string" } }, required: ["status"] } })`

// listChangedWays are the sessions a notification reaches: a 2025-11-25
// Streamable HTTP session, stdio at 2025-11-25, and 2026-07-28 over stdio
// and over HTTP (which get it on their subscriptions/listen stream; over
// HTTP that request is served statelessly and carries the token).
var listChangedWays = []struct {
	name, version string
	stdio         bool
}{
	{"2025-11-25/http", "2025-11-25", false},
	{"2025-11-25/stdio", "2025-11-25", true},
	{"2026-07-28/stdio", "2026-07-28", true},
	{"2026-07-28/http", "2026-07-28", false},
}

// A save or removal sends notifications/tools/list_changed to its
// owner's sessions only; a publication to everyone's.
func TestSavedFunctionsListChanged(t *testing.T) {
	for _, way := range listChangedWays {
		t.Run(way.name, func(t *testing.T) {
			lib := saved.New(nil)
			ts, _ := startApprovals(t, func(o *codemode.Options) { o.Saved = lib; o.HTTP.Stateful = true })
			connect := func(subject string) (*mcp.ClientSession, chan struct{}) {
				ch := make(chan struct{}, 16)
				opts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { ch <- struct{}{} }}
				var cs *mcp.ClientSession
				if way.stdio {
					cs = ts.connectStdio(t, subject, way.version, opts)
				} else {
					cs = ts.connectAt(t, ts.token(subject), way.version, opts)
				}
				if _, err := cs.ListTools(context.Background(), nil); err != nil {
					t.Fatal(err)
				}
				return cs, ch
			}
			alice, aliceN := connect("alice")
			bob, bobN := connect("bob")

			if res := run(t, alice, saveReview); res.IsError {
				t.Fatal(text(res))
			}
			<-aliceN
			if res := run(t, bob, strings.Replace(saveReview, "weeklyReview", "bobsReview", 1)); res.IsError {
				t.Fatal(text(res))
			}
			<-bobN
			if res := run(t, alice, `await codemode.removeSaved("weeklyReview"); return 1`); res.IsError {
				t.Fatal(text(res))
			}
			<-aliceN
			if err := lib.Publish(context.Background(), "bob", "bobsReview", true); err != nil {
				t.Fatal(err)
			}
			<-aliceN
			<-bobN
			// Each change's round was sent before the next change was made:
			// a notification for another's change would be queued by now.
			if len(aliceN) != 0 || len(bobN) != 0 {
				t.Fatalf("extra notifications: alice %d, bob %d", len(aliceN), len(bobN))
			}
		})
	}
}

// Re-registering execute_code to notify does not disturb an execution in
// flight: it finishes with its result.
func TestSavedFunctionsListChangedKeepsCallsInFlight(t *testing.T) {
	b := newBlocker(t)
	lib := saved.New(nil)
	ts := startServerFor(t, b.cat, func(o *codemode.Options) { b.configure(o); o.Saved = lib; o.HTTP.Stateful = true })
	changed := make(chan struct{}, 4)
	cs := ts.connectAt(t, ts.token("alice"), "2025-11-25", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }})
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `const a = await slow.wait({}); return a + await slow.ping({})`}})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-b.running
	if _, err := lib.Save(context.Background(), saved.NewEnv("alice", nil, false), saved.Draft{Name: "one", Description: "One.", Code: "return 1", Input: json.RawMessage(`{"type":"object"}`)}); err != nil {
		t.Fatal(err)
	}
	<-changed // re-registered while the call waits
	close(b.release)
	if res := <-done; res == nil || res.IsError || value(res) != "2" {
		t.Fatalf("the call in flight: %v", res)
	}
}

// The official TypeScript client, over Streamable HTTP and stdio, as bob:
// alice's private save does not notify him; the publication that follows
// does, and his tools/list then names the published function, not hers.
func TestSavedFunctionsTypeScriptClientNotOthers(t *testing.T) {
	for _, stdio := range []bool{false, true} {
		name := "http"
		if stdio {
			name = "stdio"
		}
		t.Run(name, func(t *testing.T) {
			lib := saved.New(nil)
			bobRan := make(chan struct{}, 1)
			ts, _ := startApprovals(t, func(o *codemode.Options) {
				o.Saved = lib
				o.Audit.Sink = codemode.AuditFunc(func(_ context.Context, ev codemode.AuditEvent) {
					if ev.Kind == codemode.ExecutionFinished && ev.Subject == "bob" {
						bobRan <- struct{}{}
					}
				})
			})
			aliceN := make(chan struct{}, 8)
			// alice is told on her 2026-07-28 listen stream, after go-sdk
			// has decided for every 2025-11-25 session (bob's) in the same
			// round: when she has it, bob's has been sent or dropped.
			ts.connectAt(t, ts.token("alice"), "2026-07-28", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { aliceN <- struct{}{} }})
			steps, _ := json.Marshal([]map[string]any{{"list": true}, {"code": "return 1"}, {"waitChanged": true}, {"list": true}})
			var wait func() (string, error)
			if stdio {
				client := tsclienttest.Start(t, t.Context(), "testdata/ts-saved.mjs", []string{"MCP_TRANSPORT=stdio", "MCP_STEPS=" + string(steps)})
				ctx, cancel := context.WithCancel(t.Context())
				served := make(chan error, 1)
				go func() { served <- ts.ServeIO(ctx, principal("bob"), client.Stdout, client.Stdin) }()
				wait = func() (string, error) {
					err := client.Wait()
					cancel()
					<-served
					return client.Stderr(), err
				}
			} else {
				cmd := tsclienttest.Command(t, t.Context(), "testdata/ts-saved.mjs", []string{"MCP_URL=" + ts.URL, "MCP_TOKEN=" + ts.token("bob"), "MCP_STEPS=" + string(steps)})
				var out strings.Builder
				cmd.Stderr = &out
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				wait = func() (string, error) { err := cmd.Wait(); return out.String(), err }
			}
			<-bobRan // bob's session is open and known
			env := saved.NewEnv("alice", nil, false)
			draft := func(name string) saved.Draft {
				return saved.Draft{Name: name, Description: "Returns 1.", Code: "return 1", Input: json.RawMessage(`{"type":"object"}`)}
			}
			if _, err := lib.Save(context.Background(), env, draft("hers")); err != nil {
				t.Fatal(err)
			}
			<-aliceN
			if _, err := lib.Save(context.Background(), env, draft("shared")); err != nil {
				t.Fatal(err)
			}
			<-aliceN
			if err := lib.Publish(context.Background(), "alice", "shared", true); err != nil {
				t.Fatal(err)
			}
			stderr, err := wait()
			if err != nil {
				t.Fatalf("client: %v\n%s", err, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			var got tsSaved
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
				t.Fatalf("client output %q: %v", stderr, err)
			}
			d, _ := got.tool(3, codemode.ToolName)
			if !strings.Contains(d, "saved.shared (READ-ONLY, version 1): Returns 1. (written by someone else)") || strings.Contains(d, "saved.hers") {
				t.Fatalf("bob's description after his first notification: %s", d)
			}
			if got.Changed != 1 {
				t.Fatalf("bob was notified %d times, want once (the publication)", got.Changed)
			}
		})
	}
}
