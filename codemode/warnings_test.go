package codemode_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

// warningsOf decodes structuredContent.warnings.
func warningsOf(t *testing.T, res *mcp.CallToolResult) []sandbox.Warning {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Warnings []sandbox.Warning `json:"warnings"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s.Warnings
}

// TestWarningsReachTheModel checks, through an MCP client in both sandbox
// modes, that an argument a READ-ONLY function ignored and a host call the
// script did not await are shown in the text the model reads and in
// structuredContent, with the call's position.
func TestWarningsReachTheModel(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeWorker, sandbox.ModeInProcess} {
		t.Run(mode.String(), func(t *testing.T) {
			ts := startServer(t, func(o *codemode.Options) {
				o.Sandbox.Mode = mode
				withPool(t, o, 1)
			})
			cs := ts.connect(t, ts.token("alice", allScopes...), nil)

			res := run(t, cs, "const all = await brakinglab.getSessions({ track: \"Monza\" });\nreturn all.length;")
			txt := text(res)
			if res.IsError || !strings.HasPrefix(txt, "Warnings:\n- line 1, column 30: getSessions ignored unknown field \"track\" (did you mean \"trackName\"?)\n") {
				t.Errorf("text:\n%s", txt)
			}
			ws := warningsOf(t, res)
			if len(ws) != 1 || ws[0].Kind != sandbox.WarningHost || ws[0].Function != "brakinglab.getSessions" || ws[0].Line != 1 || ws[0].Column != 30 {
				t.Errorf("structured warnings = %+v", ws)
			}

			before := ts.cat.deleted.Load()
			res = run(t, cs, "const ids = [\"s0\", \"s1\"];\nids.forEach(async (id) => {\n  await brakinglab.deleteSession({ sessionId: id });\n});\nreturn \"done\";")
			txt = text(res)
			if got := ts.cat.deleted.Load() - before; got != 2 {
				t.Errorf("%d sessions deleted, want 2", got)
			}
			s := structuredOf(t, res)
			if len(s.Calls) != 2 || s.Calls[0].Outcome != "ok" || s.Calls[1].Outcome != "ok" {
				t.Errorf("calls = %+v", s.Calls)
			}
			if !strings.HasPrefix(txt, "Warnings:\n- line 3, column 20 (2 calls): brakinglab.deleteSession was not awaited: the script ended before the call finished; it finished afterwards and succeeded. Await it, or collect the promises and `await Promise.all(...)`.\n\nResult:\n") {
				t.Errorf("text:\n%s", txt)
			}
			ws = warningsOf(t, res)
			if len(ws) != 2 || ws[0].Kind != sandbox.WarningUnawaited || ws[0].Outcome != "ok" || ws[1].Line != 3 {
				t.Errorf("structured warnings = %+v", ws)
			}
			t.Logf("model reads:\n%s", txt)

			// A failed run shows the error first, then the warnings.
			res = run(t, cs, "const sessions = brakinglab.getSessions({});\nreturn sessions.filter((s: any) => s.bestLapMs > 0);")
			txt = text(res)
			want := "RUNTIME at line 2, column 8: TypeError: cannot read 'filter' of a Promise: this value is the Promise returned by brakinglab.getSessions, not its result. Add await"
			wi := strings.Index(txt, "\n\nWarnings:\n- line 1, column 29: brakinglab.getSessions was not awaited")
			if !res.IsError || !strings.HasPrefix(txt, want) || wi < 0 {
				t.Errorf("text:\n%s", txt)
			}
			if ws = warningsOf(t, res); len(ws) != 1 || ws[0].Outcome != "ok" {
				t.Errorf("structured warnings = %+v", ws)
			}
		})
	}
}
