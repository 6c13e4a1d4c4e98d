package sandbox

import (
	"strings"
	"testing"
)

// TestConsoleFormatting checks Node-like formatting: strings raw, other
// values as JSON, levels kept.
func TestConsoleFormatting(t *testing.T) {
	tests := []struct {
		name, src string
		want      []LogEntry
	}{
		{"strings raw", `console.log("a \"quoted\" string", 'x')`, []LogEntry{{"log", `a "quoted" string x`}}},
		{"primitives", `console.log(1, 2.5, true, null, undefined, 10n, NaN)`, []LogEntry{{"log", "1 2.5 true null undefined 10n NaN"}}},
		{"objects and arrays as JSON", `console.log({ a: 1, b: [1, "x"], c: { d: null } }, [1, 2])`, []LogEntry{{"log", `{"a":1,"b":[1,"x"],"c":{"d":null}} [1,2]`}}},
		{"levels", `console.info("i"); console.warn("w"); console.error("e"); console.debug("d"); console.log("l")`,
			[]LogEntry{{"info", "i"}, {"warn", "w"}, {"error", "e"}, {"debug", "d"}, {"log", "l"}}},
		{"functions and symbols", `function named() {}; console.log(named, () => 1, Symbol("s"))`, []LogEntry{{"log", "[Function: named] [Function: anonymous] Symbol(s)"}}},
		{"nested functions are dropped as in JSON", `console.log({ f() {}, a: 1 })`, []LogEntry{{"log", `{"a":1}`}}},
		{"errors inside data", `const e: any = new RangeError("r"); e.issues = [1]; console.log({ e, plain: new Error("p") })`, []LogEntry{{"log", `{"e":{"error":"RangeError: r","issues":[1]},"plain":"Error: p"}`}}},
		{"cycle with a function", `const o: any = { f() {} }; o.o = o; console.log(o)`, []LogEntry{{"log", `{"f":"[Function: f]","o":"[Circular]"}`}}},
		{"cycles do not fail", `const o: any = { a: 1 }; o.self = o; console.log(o)`, []LogEntry{{"log", `{"a":1,"self":"[Circular]"}`}}},
		{"bigint inside objects", `console.log({ n: 5n })`, []LogEntry{{"log", `{"n":"5n"}`}}},
		{"undefined in arrays and objects", `console.log([undefined, 1], { u: undefined, v: 2 })`, []LogEntry{{"log", `[null,1] {"v":2}`}}},
		{"empty call", `console.log()`, []LogEntry{{"log", ""}}},
		{"Map and Date", `console.log(new Date(0))`, []LogEntry{{"log", `"1970-01-01T00:00:00.000Z"`}}},
	}
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				res := mustRun(t, sb, tc.src, nil)
				if len(res.Logs) != len(tc.want) {
					t.Fatalf("logs = %q, want %q", res.Logs, tc.want)
				}
				for i := range tc.want {
					if res.Logs[i] != tc.want[i] {
						t.Errorf("log %d = %q, want %q", i, res.Logs[i], tc.want[i])
					}
				}
			})
		}
	})
}

// TestConsoleErrors checks that errors print as their stack in TypeScript
// coordinates, with extra properties such as a host error's issues.
func TestConsoleErrors(t *testing.T) {
	sb := inProcessSandbox(t, Limits{})
	res := mustRun(t, sb, "const e: any = new TypeError('bad');\ne.code = 7;\nconsole.error(e);\nconsole.log({ err: new Error('inner') });\ntry { null!.x } catch (err: any) { console.log(err.stack) }", nil)
	if len(res.Logs) != 3 {
		t.Fatalf("logs = %q", res.Logs)
	}
	if got := res.Logs[0]; got.Level != "error" || !strings.HasPrefix(got.Message, "TypeError: bad\n    at agent.ts:1:16") || !strings.HasSuffix(got.Message, ` {"code":7}`) {
		t.Errorf("error log = %q", got)
	}
	if got := res.Logs[1].Message; got != `{"err":"Error: inner"}` {
		t.Errorf("nested error log = %q", got)
	}
	if got := res.Logs[2].Message; got != "TypeError: Cannot read property 'x' of undefined\n    at agent.ts:5:13" {
		t.Errorf("logged err.stack = %q", got)
	}
}

// TestMissingAwait checks that a promise in output points at the missing
// await instead of printing {}.
func TestMissingAwait(t *testing.T) {
	sb := inProcessSandbox(t, Limits{})
	res := mustRun(t, sb, "const s = ns.f({});\nconsole.log(s);\nconsole.log({ s });\nawait s;\nreturn { s };", echoHost("ns.f"))
	want := `"[Promise: not awaited; add await before the call]"`
	if len(res.Logs) != 2 || res.Logs[0].Message != want || res.Logs[1].Message != `{"s":`+want+`}` {
		t.Errorf("logs = %q", res.Logs)
	}
	if string(res.Value) != `{"s":`+want+`}` {
		t.Errorf("value = %s", res.Value)
	}
}
