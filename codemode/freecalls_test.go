package codemode_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// A script looping on each free call (codemode.chart, progress, search,
// describe) is stopped by the execution's free-call budget with an error
// that says what to do, and the loop's host CPU stays bounded (logged: it
// is the count and bytes bounds that are asserted). Before, an 8 s loop
// on codemode.chart spent 5.0 s of host CPU on about 170 MB of arguments,
// one on codemode.progress 4.5 s. A new execution has a fresh budget.
func TestFreeCallLoopBounded(t *testing.T) {
	ts := startServer(t, nil)
	alice := ts.connect(t, ts.token("alice", allScopes...), nil)
	bigChart := `{ title: "t", series: [{ name: "s", x: Array.from({ length: 8000 }, (_, i) => i), y: Array.from({ length: 8000 }, (_, i) => i * 1.5) }] }`
	for name, tt := range map[string]struct {
		call, want string // want: a bound's refusal, "|" between bounds either of which may come first
		calls      int    // calls the budget lets through; 0: bounded by bytes or CPU
	}{
		"progress": {`codemode.progress(i, 1e6, "row " + i)`, "already made 1000 calls to codemode functions", 1000},
		"describe": {`codemode.describe("getSessions")`, "already made 1000 calls to codemode functions", 1000},
		"search":   {`codemode.search("braking")`, "already made 1000 calls to codemode functions", 1000},
		"chart":    {`codemode.chart(` + bigChart + `)`, "over the 4 MiB one execution may pass|used their 500ms of host CPU", 0},
	} {
		t.Run(name, func(t *testing.T) {
			code := `let n = 0, other = 0, last = "";
for (let i = 0; i < 100000; i++) {
  try { await ` + tt.call + `; n++; }
  catch (e) { if (String(e).includes("calls to codemode functions")) return { n, other, error: String(e) }; other++; last = String(e); }
}
return { n, other, last };`
			before := cpuTime(t)
			res := run(t, alice, code)
			cpu := cpuTime(t) - before
			var got struct {
				N, Other    int
				Error, Last string
			}
			if err := json.Unmarshal(structuredOf(t, res).Result, &got); err != nil {
				t.Fatalf("%v: %s", err, text(res))
			}
			t.Logf("%d answered, %d refused by the function's own bounds, %v host CPU: %s", got.N, got.Other, cpu, got.Error)
			// Decoding charts is slower under the race detector: the
			// CPU bound may come before the bytes bound.
			if !slices.ContainsFunc(strings.Split(tt.want, "|"), func(w string) bool { return strings.Contains(got.Error, w) }) || !strings.Contains(got.Error, "not run") {
				t.Fatalf("error %q does not say %q (last other error %q)", got.Error, tt.want, got.Last)
			}
			if tt.calls > 0 && got.N+got.Other != tt.calls {
				t.Errorf("%d calls let through, want %d", got.N+got.Other, tt.calls)
			}
			if res := run(t, alice, `await codemode.progress(1, 2); return (await codemode.describe("getSessions")).length > 0`); string(structuredOf(t, res).Result) != "true" {
				t.Errorf("next execution: %s", text(res))
			}
		})
	}
}

// A script that catches the free-call budget's refusal and calls again
// is stopped after freecalls.MaxRefused refusals with CALL_LIMIT saying
// why, instead of spending host CPU on refused calls until its time
// limit (before: 2.2 s of host CPU in 8 s on a worker).
func TestFreeCallRetryStopped(t *testing.T) {
	ts := startServer(t, nil)
	alice := ts.connect(t, ts.token("alice", allScopes...), nil)
	before := cpuTime(t)
	res := run(t, alice, `for (let i = 0; ; i++) { try { await codemode.progress(i, 1e9, "x"); } catch (e) {} }`)
	t.Logf("%v host CPU", cpuTime(t)-before)
	st := structuredOf(t, res)
	if st.Error == nil || st.Error.Kind != "CALL_LIMIT" || !strings.Contains(st.Error.Message, "kept calling codemode functions") || !strings.Contains(st.Error.Message, "every n-th item") {
		t.Fatalf("want CALL_LIMIT saying what to do, got %s", text(res))
	}
}
