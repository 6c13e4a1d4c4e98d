package codemode_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
	"github.com/brakinglab/codemode-go/saved"
)

// saveRaceSummary saves saved.raceSummary, whose output schema declares
// { count: number; names: string[] }.
const saveRaceSummary = `return await codemode.save({
  name: "raceSummary",
  description: "Counts the races of one status and names them.",
  code: "const rs = await races.listRaces({ status: input.status });\nreturn { count: rs.length, names: rs.map((r) => r.name) };",
  input: { type: "object", properties: { status: { type: "string" } }, required: ["status"] },
  output: { type: "object", properties: { count: { type: "integer" }, names: { type: "array", items: { type: "string" } } }, required: ["count", "names"] },
});`

// A script that misreads what a saved function returned is told, in both
// sandbox modes and in the same words, which saved function and line it
// came from and what its output schema declares, as its declaration
// shows it, with the fix; the same for "[object Object]" sent to a call.
func TestSavedResultOrigins(t *testing.T) {
	cases := []struct{ code, want string }{
		{"const sum = await saved.raceSummary({ status: \"cancelled\" });\nreturn sum.filter((n: string) => n.startsWith(\"S\"));",
			"TypeError: Object has no member 'filter'. sum is the result of saved.raceSummary (line 1), declared `{ count: number; names: string[] }`: an object with members count, names, which has no member filter (read at line 2): use sum.names, the array in it, e.g. sum.names.filter(…)."},
		{"const sum = await saved.raceSummary({ status: \"cancelled\" });\nreturn sum.count.value.toFixed(0);",
			"sum.count is result.count, part of the result of saved.raceSummary (line 1), declared `{ count: number; names: string[] }`: a number, which has no member value (read at line 2): use sum.count itself."},
		// A value nested in the result: the saved function's array.
		{"const sum = await saved.raceSummary({ status: \"cancelled\" });\nreturn sum.names.name.toUpperCase();",
			"sum.names is result.names, part of the result of saved.raceSummary (line 1), declared `{ count: number; names: string[] }`: an array, which has no member name (read at line 2). Pick an element first, e.g. sum.names[0].name for the first one, or loop over the list."},
		{"const sum = await saved.raceSummary({ status: \"cancelled\" });\nawait races.createRace({ name: String(sum) });\nreturn 1;",
			"in the arguments to races.createRace, args.name holds \"[object Object]\": an object was turned into a string (String(x), `${x}` or x + \"\"); the object is the result of saved.raceSummary (line 1), declared `{ count: number; names: string[] }`. Pass the member you meant (.count, .names)"},
	}
	replies := map[string][]string{}
	for _, mode := range []sandbox.Mode{sandbox.ModeInProcess, sandbox.ModeWorker} {
		t.Run(mode.String(), func(t *testing.T) {
			ts, b := startApprovals(t, func(o *codemode.Options) { o.Saved = saved.New(nil); o.Sandbox.Mode = mode })
			b.add("alice", "Spa", "cancelled")
			b.add("alice", "Monza", "cancelled")
			cs := ts.connectAt(t, ts.token("alice"), "2026-07-28", nil)
			if res := run(t, cs, saveRaceSummary); res.IsError {
				t.Fatalf("save: %s", text(res))
			}
			var decl string
			if err := json.Unmarshal([]byte(value(run(t, cs, `return await codemode.describe("saved.raceSummary")`))), &decl); err != nil {
				t.Fatal(err)
			}
			// The reply words the declaration on one line, as for any
			// function's result (int is a number there).
			if !strings.Contains(decl, "Promise<RaceSummaryResult>") || !strings.Contains(decl, "RaceSummaryResult { count: int; names: string[] }") {
				t.Fatalf("the declaration does not show the output schema:\n%s", decl)
			}
			for _, tc := range cases {
				got := text(run(t, cs, tc.code))
				if !strings.Contains(got, tc.want) {
					t.Errorf("the reply lacks %q:\n%s", tc.want, got)
				}
				replies[mode.String()] = append(replies[mode.String()], got)
			}
		})
	}
	for i := range cases {
		if a, w := replies["in-process"], replies["worker"]; len(a) > i && len(w) > i && a[i] != w[i] {
			t.Errorf("case %d: the modes differ:\nin process:\n%s\nworker:\n%s", i, a[i], w[i])
		}
	}
}
