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

// saveCancelledCleanup saves saved.cleanup: it deletes the caller's
// races of a status.
const saveCancelledCleanup = `return await codemode.save({
  name: "cleanup",
  description: "Deletes the races of one status; returns how many.",
  code: "const rs = await races.listRaces({ status: input.status });\nfor (const r of rs) await races.deleteRace({ id: r.id });\nreturn rs.length;",
  input: { type: "object", properties: { status: { type: "string" } }, required: ["status"] },
});`

func TestSavedFunctionsEndToEnd(t *testing.T) {
	for _, rv := range revisions {
		t.Run(rv.name, func(t *testing.T) {
			lib := saved.New(nil)
			ts, b := startApprovals(t, func(o *codemode.Options) { o.Saved = lib; o.HTTP.Stateful = rv.stateful })
			b.add("alice", "Spa", "cancelled")
			b.add("alice", "Monza", "cancelled")
			b.add("alice", "Imola", "planned")
			bobsRace := b.add("bob", "Suzuka", "cancelled")
			e := &elicitor{action: always("accept")}
			alice := ts.connectAt(t, ts.token("alice"), rv.version, &mcp.ClientOptions{ElicitationHandler: e.handle})

			res := run(t, alice, saveCancelledCleanup)
			if res.IsError || !strings.Contains(flat(res), `"version":1`) || !strings.Contains(flat(res), `"tier":"MUTATING"`) {
				t.Fatalf("save: %s", text(res))
			}
			// Bad arguments: a validation error naming the member, nothing deleted, nothing asked.
			res = run(t, alice, `return await saved.cleanup({ status: 3 })`)
			if !res.IsError || !strings.Contains(text(res), "status") || len(e.asked()) != 0 {
				t.Fatalf("bad args: %s (asked %d)", text(res), len(e.asked()))
			}
			// A dry run checks without running.
			res = run(t, alice, `return await saved.cleanup({ status: "cancelled", _validateOnly: true })`)
			if res.IsError || !strings.Contains(text(res), "valid") || len(b.deleted("alice")) != 0 {
				t.Fatalf("dry run: %s", text(res))
			}
			// The call asks once, naming the saved function, and deletes both.
			res = run(t, alice, `return await saved.cleanup({ status: "cancelled" })`)
			if res.IsError || !strings.Contains(text(res), "2") {
				t.Fatalf("call: %s", text(res))
			}
			asked := e.asked()
			if len(asked) != 1 || !strings.Contains(asked[0], "called by saved.cleanup version 1") {
				t.Fatalf("asked %q", asked)
			}
			if got := b.deleted("alice"); len(got) != 2 {
				t.Fatalf("deleted %v", got)
			}
			from := 0
			for _, ev := range ts.audit.all() {
				if ev.Function == "races.deleteRace" && ev.From == "saved.cleanup version 1" {
					from++
				}
			}
			if from != 2 {
				t.Fatalf("%d audited deletions name saved.cleanup, want 2", from)
			}

			// Bob cannot see or call it: the same answer as a missing name.
			bob := ts.connectAt(t, ts.token("bob"), rv.version, &mcp.ClientOptions{ElicitationHandler: e.handle})
			res = run(t, bob, `try { await saved.cleanup({ status: "cancelled" }) } catch (e) { return e.message }`)
			missing := run(t, bob, `try { await saved.nothing({}) } catch (e) { return e.message }`)
			if strings.ReplaceAll(text(res), "cleanup", "X") != strings.ReplaceAll(text(missing), "nothing", "X") {
				t.Fatalf("bob sees %q, missing is %q", text(res), text(missing))
			}
			res = run(t, bob, `return (await codemode.saved()).functions.length`)
			if value(res) != "0" {
				t.Fatalf("bob lists %s", text(res))
			}

			// Published, it runs as bob on bob's races.
			if err := lib.Publish(context.Background(), "alice", "cleanup", true); err != nil {
				t.Fatal(err)
			}
			res = run(t, bob, `return await saved.cleanup({ status: "cancelled" })`)
			if res.IsError || value(res) != "1" {
				t.Fatalf("bob's call: %s", text(res))
			}
			if got := b.deleted("bob"); len(got) != 1 || got[0] != bobsRace {
				t.Fatalf("bob's deleted %v", got)
			}
			res = run(t, bob, `return await codemode.describe("saved.cleanup")`)
			if !strings.Contains(text(res), "Written by someone else") {
				t.Fatalf("describe: %s", text(res))
			}

			// Versions, history and removal.
			res = run(t, alice, strings.Replace(saveCancelledCleanup, "returns how many", "returns how many (v2)", 1))
			if !strings.Contains(flat(res), `"version":2`) {
				t.Fatalf("second save: %s", text(res))
			}
			res = run(t, alice, `const h = await codemode.savedHistory("cleanup"); return h.map(f => f.version + ":" + f.description)`)
			if !strings.Contains(text(res), "1:Deletes") || !strings.Contains(text(res), "2:Deletes") {
				t.Fatalf("history: %s", text(res))
			}
			res = run(t, bob, `try { await codemode.removeSaved("cleanup") } catch (e) { return e.message }`)
			if !strings.Contains(text(res), "not found") {
				t.Fatalf("bob removed alice's: %s", text(res))
			}
			res = run(t, alice, `await codemode.removeSaved("cleanup"); try { await saved.cleanup({ status: "x" }) } catch (e) { return e.message }`)
			if !strings.Contains(text(res), "not found") {
				t.Fatalf("after removal: %s", text(res))
			}
		})
	}
}

func TestSavedFunctionErrorsNameTheirLine(t *testing.T) {
	ts, _ := startApprovals(t, func(o *codemode.Options) { o.Saved = saved.New(nil) })
	cs := ts.connectAt(t, ts.token("alice"), "2026-07-28", nil)
	res := run(t, cs, `return await codemode.save({ name: "broken", description: "fails", code: "const a = 1;\nreturn a.b.c;", input: { type: "object", properties: {} } })`)
	if res.IsError {
		t.Fatalf("save: %s", text(res))
	}
	res = run(t, cs, `return await saved.broken({})`)
	if !res.IsError || !strings.Contains(text(res), "in saved.broken version 1, line 2 column") {
		t.Fatalf("error: %s", text(res))
	}
	// Saving bad code reports it, with every other problem, and stores nothing.
	res = run(t, cs, `try { await codemode.save({ name: "if", description: "", code: "return (", input: { type: "string" } }) } catch (e) { return e.issues }`)
	var issues []struct {
		Path    []any  `json:"path"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(text(res), "Result:\n")), &issues); err != nil || len(issues) < 4 {
		t.Fatalf("issues: %s", text(res))
	}
}

// flat is the result's text without white space.
func flat(res *mcp.CallToolResult) string { return strings.Join(strings.Fields(text(res)), "") }

// value is the result's text after "Result:".
func value(res *mcp.CallToolResult) string {
	t := text(res)
	if i := strings.LastIndex(t, "Result:"); i >= 0 {
		t = t[i+len("Result:"):]
	}
	return strings.TrimSpace(t)
}

// The official TypeScript SDK client saves a function, calls it with bad
// and good arguments (the deleting call asks once, naming it), lists its
// versions and removes it, in one connection over Streamable HTTP.
func TestSavedFunctionsTypeScriptClient(t *testing.T) {
	ts, b := startApprovals(t, func(o *codemode.Options) { o.Saved = saved.New(nil) })
	b.add("alice", "Spa", "cancelled")
	b.add("alice", "Imola", "planned")
	got := tsclienttest.RunApproval(t, t.Context(), ts.URL, ts.token("alice"), "accept",
		saveCancelledCleanup,
		`return await saved.cleanup({ state: "cancelled" })`,
		`return await saved.cleanup({ status: "cancelled" })`,
		strings.Replace(saveCancelledCleanup, "returns how many", "returns how many, again", 1),
		`return (await codemode.savedHistory("cleanup")).map(f => f.version)`,
		`await codemode.removeSaved("cleanup"); return (await codemode.saved()).functions.length`,
	)
	c := got.Calls
	if c[0].IsError || !strings.Contains(c[0].Text, "saved.cleanup") {
		t.Fatalf("save: %s", got)
	}
	if !c[1].IsError || !strings.Contains(c[1].Text, "status") {
		t.Fatalf("bad arguments: %+v", c[1])
	}
	if c[2].IsError || string(c[2].Result.Result) != "1" {
		t.Fatalf("call: %+v", c[2])
	}
	if len(got.Asked) != 1 || !strings.Contains(got.Asked[0], "races.deleteRace (MUTATING), called by saved.cleanup version 1") {
		t.Fatalf("asked %q", got.Asked)
	}
	if string(c[4].Result.Result) != "[1,2]" || string(c[5].Result.Result) != "0" {
		t.Fatalf("versions %s, after removal %s", c[4].Result.Result, c[5].Result.Result)
	}
	if d := b.deleted("alice"); len(d) != 1 {
		t.Fatalf("deleted %v", d)
	}
}

// execute_readonly_code binds only READ-ONLY saved functions and does not
// save or remove.
func TestSavedFunctionsInTheReadOnlyTool(t *testing.T) {
	ts, b := startApprovals(t, func(o *codemode.Options) { o.Saved = saved.New(nil); o.ReadOnlyTool = true })
	b.add("alice", "Spa", "cancelled")
	cs := ts.connectAt(t, ts.token("alice"), "2026-07-28", nil)
	if res := run(t, cs, saveCancelledCleanup); res.IsError {
		t.Fatal(text(res))
	}
	if res := run(t, cs, `return await codemode.save({ name: "count", description: "Counts races.", code: "return (await races.listRaces({})).length", input: { type: "object", properties: {} } })`); res.IsError {
		t.Fatal(text(res))
	}
	ro := func(code string) *mcp.CallToolResult {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ReadOnlyToolName, Arguments: map[string]any{"code": code}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := ro(`return await saved.count({})`); res.IsError || value(res) != "1" {
		t.Fatalf("read-only saved function: %s", text(res))
	}
	if res := ro(`return await saved.cleanup({ status: "cancelled" })`); !res.IsError || len(b.deleted("alice")) != 0 {
		t.Fatalf("MUTATING saved function in the read-only tool: %s", text(res))
	}
	if res := ro(`return await codemode.save({ name: "x", description: "x", code: "return 1", input: { type: "object" } })`); !res.IsError || !strings.Contains(text(res), "read-only tool") {
		t.Fatalf("save in the read-only tool: %s", text(res))
	}
}
