package codemode_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

// writeApproveMisread creates a race (no approval needed, its name from
// the clock), deletes one (which asks), lists the races and misreads the
// list: the failure is explained by the sandbox's second run, which must
// neither write nor ask again.
const writeApproveMisread = `const copy = await races.createRace({name: "Copy of Monza " + Date.now(), status: "entered"});
await races.deleteRace({id: %d});
const left = await races.listRaces({status: "entered"});
return left.split(",");`

// explainedMisread is what the reply must say of the misread list.
const explainedMisread = "TypeError: Object has no member 'split'. left is the result of races.listRaces (line 3)"

// A script that writes, is approved, and then misreads a result gets the
// explanation that names the result's call, the way each client reaches
// it: go-sdk clients on 2026-07-28 and on 2025-11-25 over HTTP and stdio,
// in both sandbox modes, and the official TypeScript client on its
// default revision over HTTP and stdio. The create ran once, the delete
// once, and the user was asked once: explaining the failure runs the
// script again without the host.
func TestExplainedFailureAfterAnApprovedWrite(t *testing.T) {
	check := func(t *testing.T, b *raceBook, asked []string, isError bool, msg string) {
		t.Helper()
		if !isError || !strings.Contains(msg, explainedMisread) {
			t.Errorf("reply %q, want it to hold %q", msg, explainedMisread)
		}
		if c, d := b.creates.Load(), b.deletes.Load(); c != 1 || d != 1 {
			t.Errorf("createRace ran %d times and deleteRace %d, want once each", c, d)
		}
		if len(asked) != 1 {
			t.Errorf("asked %d times, want once: %q", len(asked), asked)
		}
	}
	for _, mode := range []sandbox.Mode{sandbox.ModeWorker, sandbox.ModeInProcess} {
		for _, rv := range replayRevisions {
			t.Run(mode.String()+"/"+rv.name, func(t *testing.T) {
				ts, b := startApprovals(t, func(o *codemode.Options) { o.HTTP.Stateful = rv.stateful; o.Sandbox.Mode = mode })
				old := b.add("alice", "Monza", "entered")
				e := &elicitor{action: always("accept")}
				cs := ts.connectRev(t, rv.stdio, rv.version, &mcp.ClientOptions{ElicitationHandler: e.handle})
				res := run(t, cs, fmt.Sprintf(writeApproveMisread, old))
				st := structuredOf(t, res)
				msg := ""
				if st.Error != nil {
					msg = st.Error.Message
				}
				check(t, b, e.asked(), res.IsError, msg)
				if len(st.Writes) != 2 {
					t.Errorf("writes %+v, want the create and the delete", st.Writes)
				}
			})
		}
	}
	for _, stdio := range []bool{false, true} {
		name := "typescript/http"
		if stdio {
			name = "typescript/stdio"
		}
		t.Run(name, func(t *testing.T) {
			ts, b := startApprovals(t, nil)
			old := b.add("alice", "Monza", "entered")
			got := runTSSteps(t, ts, "alice", stdio, []map[string]any{{"code": fmt.Sprintf(writeApproveMisread, old)}})
			check(t, b, got.Asked, got.Steps[0].IsError, got.Steps[0].Text)
		})
	}
}
