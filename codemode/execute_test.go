package codemode_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

func TestExecute(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeWorker, sandbox.ModeInProcess} {
		t.Run(mode.String(), func(t *testing.T) { testExecute(t, mode) })
	}
}

func testExecute(t *testing.T, mode sandbox.Mode) {
	ts := startServer(t, func(o *codemode.Options) {
		o.Sandbox.Mode = mode
		o.Limits = sandbox.Limits{Timeout: 3 * time.Second} // short, yet ample for a loaded CI machine
		withPool(t, o, 1)
	})
	cs := ts.connect(t, ts.token("alice", allScopes...), nil)

	report := `{sessionId: "s0", overview: {assessment: %q, summary: "ok"},
  pace: {bestLapMs: 137000, averageLapMs: 138500, consistencyPct: 85, improvementTrend: "improving"},
  corners: [], actionItems: [{priority: 1, action: "brake earlier", why: "late"}]%s}`
	tests := []struct {
		name    string
		code    string
		isError bool
		kind    string
		line    int
		// check inspects what the test cares about beyond kind and line.
		check func(t *testing.T, text string, s structuredResult)
	}{
		{
			name: "coaching script",
			code: coachingTS,
			check: func(t *testing.T, text string, s structuredResult) {
				if !jsonEqual(s.Result, `{"reportId":"r1","corners":5}`) {
					t.Errorf("result = %s", s.Result)
				}
				if len(s.Logs) != 2 || !strings.HasPrefix(s.Logs[0], "Weakest corners: ") {
					t.Errorf("logs = %q", s.Logs)
				}
				if len(s.Calls) != 4 || s.Calls[0].Function != "brakinglab.getSessions" || s.Calls[3].Outcome != "ok" {
					t.Errorf("calls = %+v", s.Calls)
				}
				li, ri := strings.Index(text, "Logs:\nWeakest corners:"), strings.Index(text, "Result:\n{\n  \"reportId\": \"r1\"")
				if li < 0 || ri < li {
					t.Errorf("text does not show logs then the result:\n%s", text)
				}
			},
		},
		{
			name: "nulls stripped from the result",
			code: `return {a: 1, b: null, c: [null, {d: null}]}`,
			check: func(t *testing.T, _ string, s structuredResult) {
				if !jsonEqual(s.Result, `{"a":1,"c":[null,{}]}`) {
					t.Errorf("result = %s", s.Result)
				}
			},
		},
		{
			name: "undefined return",
			code: `console.log("hi")`,
			check: func(t *testing.T, text string, s structuredResult) {
				if string(s.Result) != "null" || !strings.Contains(text, "Result:\nnull") {
					t.Errorf("result = %s, text %q", s.Result, text)
				}
			},
		},
		{
			name: "syntax error", code: "const a = 1;\nconst b = ;\nreturn b", isError: true, kind: "SYNTAX", line: 2,
		},
		{
			name: "runtime error", code: "const s = await brakinglab.getSessions({});\nconst x: any = null;\nreturn x.field;", isError: true, kind: "RUNTIME", line: 3,
			check: func(t *testing.T, text string, s structuredResult) {
				if len(s.Calls) != 1 {
					t.Errorf("calls = %+v, want the getSessions call made before the error", s.Calls)
				}
			},
		},
		{
			name:    "uncaught validation error lists the issues",
			code:    "await brakinglab.saveCoachingReport(" + sprintf(report, "great", "") + ");",
			isError: true, kind: "RUNTIME", line: 1,
			check: func(t *testing.T, text string, s structuredResult) {
				if len(s.Error.Issues) != 1 || !pathIs(s.Error.Issues[0].Path, "overview", "assessment") {
					t.Fatalf("issues = %+v", s.Error.Issues)
				}
				if !strings.Contains(text, "overview.assessment: ") {
					t.Errorf("text does not list the issue:\n%s", text)
				}
				if ts.cat.saved.Load() != 1 { // by the coaching script
					t.Error("an invalid report was saved")
				}
			},
		},
		{
			name: "caught validation error exposes err.issues",
			code: "try { await brakinglab.getBrakingZones({}); } catch (e: any) { return {message: e.message, issues: e.issues}; }",
			check: func(t *testing.T, _ string, s structuredResult) {
				var got struct {
					Message string
					Issues  []struct{ Path []any }
				}
				json.Unmarshal(s.Result, &got)
				if got.Message != "Validation failed" || len(got.Issues) != 1 || !pathIs(got.Issues[0].Path, "sessionId") {
					t.Errorf("result = %s", s.Result)
				}
			},
		},
		{
			name: "_validateOnly checks without saving",
			code: "return await brakinglab.saveCoachingReport(" + sprintf(report, "good", ", _validateOnly: true") + ");",
			check: func(t *testing.T, _ string, s structuredResult) {
				if string(s.Result) != `{"valid":true}` {
					t.Errorf("result = %s", s.Result)
				}
				if ts.cat.saved.Load() != 1 {
					t.Error("_validateOnly saved the report")
				}
			},
		},
		{
			name: "handler error shown as written",
			code: `return await brakinglab.getBrakingZones({sessionId: "missing"});`, isError: true, kind: "RUNTIME", line: 1,
			check: func(t *testing.T, text string, _ structuredResult) {
				if !strings.Contains(text, `session "missing" not found: list sessions with getSessions`) {
					t.Errorf("text = %s", text)
				}
			},
		},
		{
			name: "call limit",
			code: "for (let i = 0; i < 25; i++) {\n  await brakinglab.getSessions({limit: 1});\n}", isError: true, kind: "CALL_LIMIT",
			check: func(t *testing.T, text string, s structuredResult) {
				if !strings.Contains(text, "20") {
					t.Errorf("text does not say the limit: %s", text)
				}
			},
		},
		{name: "timeout", code: "let n = 0;\nwhile (true) { n++; }", isError: true, kind: "TIMEOUT"},
		{name: "code too large", code: "// " + strings.Repeat("x", 11<<10), isError: true, kind: "CODE_TOO_LARGE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, cs, tt.code)
			txt, s := text(res), structuredOf(t, res)
			if res.IsError != tt.isError {
				t.Fatalf("isError = %v, want %v:\n%s", res.IsError, tt.isError, txt)
			}
			if tt.isError {
				if s.Error == nil || s.Error.Kind != tt.kind {
					t.Fatalf("error = %+v, want kind %s:\n%s", s.Error, tt.kind, txt)
				}
				if !strings.HasPrefix(txt, tt.kind) {
					t.Errorf("text does not start with the kind:\n%s", txt)
				}
				if tt.line > 0 && (s.Error.Line != tt.line || s.Error.Column == 0) {
					t.Errorf("position %d:%d, want line %d:\n%s", s.Error.Line, s.Error.Column, tt.line, txt)
				}
			}
			if tt.check != nil {
				tt.check(t, txt, s)
			}
			// The server answers the next call normally.
			if res := run(t, cs, "return 1 + 1"); res.IsError || string(structuredOf(t, res).Result) != "2" {
				t.Fatalf("next call: %s", text(res))
			}
		})
	}
}

func pathIs(path []any, want ...any) bool {
	if len(path) != len(want) {
		return false
	}
	for i := range path {
		if path[i] != want[i] {
			return false
		}
	}
	return true
}

func jsonEqual(got json.RawMessage, want string) bool {
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal([]byte(want), &b) != nil {
		return false
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// The memory limit holds only in worker mode (the default): an allocation
// loop and a single huge builtin call both end in MEMORY_LIMIT, the host
// process is unharmed and the next call is served.
func TestMemoryLimit(t *testing.T) {
	ts := startServer(t, nil)
	cs := ts.connect(t, ts.token("alice", allScopes...), nil)
	for _, code := range []string{
		"const parts: string[] = [];\nwhile (true) { parts.push(\"x\".repeat(1 << 20) + parts.length); }",
		"return \"x\".repeat(2 ** 30).length;",
	} {
		res := run(t, cs, code)
		if s := structuredOf(t, res); !res.IsError || s.Error == nil || s.Error.Kind != "MEMORY_LIMIT" {
			t.Fatalf("%s:\n%s", code, text(res))
		}
		if !strings.Contains(text(res), "memory") {
			t.Errorf("message does not mention memory: %s", text(res))
		}
		if res := run(t, cs, coachingTS); res.IsError {
			t.Fatalf("next call: %s", text(res))
		}
	}
}

// A call whose function answers catalog.CodeOutcomeUnknown (an upstream
// write whose answer was lost) is listed with outcome "unknown", and the
// model reads that it may have taken effect.
func TestOutcomeUnknownCall(t *testing.T) {
	cat, err := catalog.New("shop", nil)
	if err != nil {
		t.Fatal(err)
	}
	type orderIn struct {
		Item string `json:"item"`
	}
	catalog.MustAdd(cat, catalog.Func[orderIn, struct{}]{
		Name: "placeOrder", Description: "Places an order.", Tier: catalog.Creative,
		Handler: func(context.Context, orderIn) (struct{}, error) {
			return struct{}{}, &catalog.Error{Code: catalog.CodeOutcomeUnknown, Message: "shop.placeOrder: the shop did not answer. The call was sent, so it may have taken effect: check before calling shop.placeOrder again."}
		},
	})
	ts := startServerFor(t, cat, nil)
	cs := ts.connect(t, ts.token("alice"), nil)
	res := run(t, cs, `try { await shop.placeOrder({item: "tyres"}); } catch (e) { return e.code; }`)
	st := structuredOf(t, res)
	if res.IsError || string(st.Result) != `"outcome_unknown"` {
		t.Fatalf("got %s", text(res))
	}
	if len(st.Calls) != 1 || st.Calls[0].Outcome != "unknown" || !strings.Contains(st.Calls[0].Error, "may have taken effect") {
		t.Fatalf("calls %+v", st.Calls)
	}
	var audited bool
	for _, ev := range ts.audit.all() {
		audited = audited || ev.Kind == codemode.FunctionCalled && ev.ErrorKind == catalog.CodeOutcomeUnknown
	}
	if !audited {
		t.Fatalf("audit:\n%s", ts.trail(res))
	}
}
