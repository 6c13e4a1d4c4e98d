package codemode_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/codemode"
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
