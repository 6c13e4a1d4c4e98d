package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestRuntimeErrorPositions checks that runtime errors report the line and
// column in the model's TypeScript, through types, lowering and awaits.
func TestRuntimeErrorPositions(t *testing.T) {
	host := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){
		"ns.fail": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("no such session")
		},
		"ns.ok": func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil },
	}}
	tests := []struct {
		name       string
		src        string
		line, col  int
		msg, stack string
	}{
		{
			name: "line 7 after types and awaits",
			src: `interface Lap { time: number }
type Laps = Lap[];
const laps: Laps = [{ time: 1 }];
await ns.ok();
function best(l: Laps): number {
  const x: any = undefined;
  return x.time + l.length;
}
return best(laps);`,
			line: 7, col: 12, msg: "TypeError: Cannot read property 'time' of undefined",
			stack: "at best (agent.ts:7:12)",
		},
		{name: "throw on line 1 (wrapper column shift)", src: "throw new Error('boom')", line: 1, col: 7, msg: "Error: boom"},
		{name: "throw after an await", src: "const r = await ns.ok();\n\n  throw new RangeError('late');", line: 3, col: 9, msg: "RangeError: late"},
		{name: "calling a non-function", src: "const a: any = 1;\n  a();", line: 2, col: 3, msg: "TypeError"},
		{name: "method call column", src: "let s: any = 1;\ns.foo();", line: 2, col: 3, msg: "TypeError: Object has no member 'foo'"},
		{name: "uncaught host error points at the call", src: "const x = 1;\nconst y = await ns.fail({ id: 3 });", line: 2, col: 20, msg: "Error: no such session"},
		{name: "error inside async function", src: "async function f(n: number) {\n  await ns.ok();\n  if (n > 0) throw new Error('n=' + n);\n}\nawait f(2);", line: 3, col: 20, msg: "Error: n=2", stack: "at f (agent.ts:3:20)"},
	}
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				_, e := runErr(t, sb, tc.src, host)
				if e.Kind != KindRuntime {
					t.Errorf("kind = %s, want RUNTIME (%v)", e.Kind, e)
				}
				if e.Line != tc.line || e.Column != tc.col {
					t.Errorf("position = %d:%d, want %d:%d (%v; stack %q)", e.Line, e.Column, tc.line, tc.col, e, e.Stack)
				}
				if !strings.HasPrefix(e.Message, tc.msg) {
					t.Errorf("message = %q, want prefix %q", e.Message, tc.msg)
				}
				if tc.stack != "" && !strings.Contains(e.Stack, tc.stack) {
					t.Errorf("stack = %q, want it to contain %q", e.Stack, tc.stack)
				}
				if strings.Contains(e.Stack, "(0)") || strings.Contains(e.Stack, "prelude") {
					t.Errorf("stack leaks engine detail: %q", e.Stack)
				}
			})
		}
	})
}

// TestSyntaxErrorPositions checks that syntax errors carry esbuild's
// message, the position in the model's source and the offending line.
func TestSyntaxErrorPositions(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line, col int
		msg, text string
	}{
		{name: "line 1", src: "let x = ;", line: 1, col: 9, msg: `Unexpected ";"`, text: "let x = ;"},
		{name: "line 3", src: "const a = 1;\nconst b = 2;\nconst c = a +* b;", line: 3, col: 14, msg: `Unexpected "*"`, text: "const c = a +* b;"},
		{name: "type error syntax", src: "const f = (x: number => x;", line: 1, col: 22, msg: `Expected ")" but found "=>"`},
		{name: "unclosed brace at end", src: "if (true) {\n  const a = 1;", line: 2, col: 15, text: "  const a = 1;"},
		{name: "import is not allowed", src: "import fs from 'fs';\nreturn 1;", line: 1, col: 8, msg: `Unexpected "fs". Modules are not available: the program is the body of an async function, so drop import/export and call the functions of the provided namespaces directly.`},
	}
	// What esbuild accepts but strict mode refuses is a syntax error too.
	tests = append(tests,
		struct {
			name      string
			src       string
			line, col int
			msg, text string
		}{name: "strict mode reserved word", src: "const a = 1;\nlet", line: 2, col: 1, msg: "Unexpected strict mode reserved word (the program runs in strict mode)", text: "let"},
	)
	sb := inProcessSandbox(t, Limits{})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, e := runErr(t, sb, tc.src, nil)
			if res != nil {
				t.Errorf("result = %+v, want nil for a syntax error", res)
			}
			if e.Kind != KindSyntax {
				t.Fatalf("kind = %s, want SYNTAX (%v)", e.Kind, e)
			}
			if e.Line != tc.line || e.Column != tc.col {
				t.Errorf("position = %d:%d, want %d:%d (%v)", e.Line, e.Column, tc.line, tc.col, e)
			}
			if tc.msg != "" && e.Message != tc.msg {
				t.Errorf("message = %q, want %q", e.Message, tc.msg)
			}
			if tc.text != "" && e.Source != tc.text {
				t.Errorf("source = %q, want %q", e.Source, tc.text)
			}
		})
	}
}
