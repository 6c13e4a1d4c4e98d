package sandbox

import (
	"strings"
	"testing"
)

// TestRuntimeErrorHints checks that the runtime errors models cause most
// often say what to do, and keep the TypeScript line:column.
func TestRuntimeErrorHints(t *testing.T) {
	tests := []struct {
		name, src  string
		line, col  int // 0: no position expected
		wantPieces []string
	}{
		{"member of an unawaited host call", "const sessions = brakinglab.getSessions({});\nreturn sessions.filter((s: any) => s.ok);", 2, 8,
			[]string{"TypeError: cannot read 'filter' of a Promise", "returned by brakinglab.getSessions", "Add await: const x = await brakinglab.getSessions(...)"}},
		{"index of an unawaited host call", "const sessions = brakinglab.getSessions({});\nconst first = sessions[0];\nreturn first.id;", 2, 15,
			[]string{"cannot read '0' of a Promise", "brakinglab.getSessions"}},
		{"iterating an unawaited host call", "const s = brakinglab.getSessions({});\nfor (const x of s as any) {}\nreturn 1", 2, 17,
			[]string{"cannot iterate over a Promise", "brakinglab.getSessions"}},
		{"member of an async function's promise", "async function f() { return [1]; }\nreturn (f() as any).map((x: number) => x);", 2, 9,
			[]string{"cannot read 'map' of a Promise, not its result: add await"}},
		{"circular return value", "const lap: any = { n: 1 };\nconst session: any = { laps: [lap] };\nlap.session = session;\nconst fastest = [lap];\nreturn { fastest };", 0, 0,
			[]string{"the return value has a circular reference: fastest[0].session.laps[0] refers back to fastest[0]"}},
		{"circular array returned", "const a: any[] = [];\na.push({ parent: a });\nreturn a;", 0, 0,
			[]string{"return value[0].parent refers back to the return value itself"}},
		{"circular arguments", "const a: any = { n: 1 };\na.self = a;\nawait brakinglab.getSessions(a);", 3, 18,
			[]string{"the arguments to brakinglab.getSessions have a circular reference: self refers back to the arguments itself"}},
		{"setTimeout", "await new Promise((r) => setTimeout(r, 100));\nreturn 1", 1, 26,
			[]string{"setTimeout is not defined: the sandbox has no timers", "capped at 10s", "Promise.all"}},
		{"Buffer", "const b = Buffer.from('x');\nreturn b", 1, 11, []string{"Buffer is not defined: the sandbox is not Node.js", "strings, arrays"}},
		{"process", "const x = 1;\nreturn process.env.HOME", 2, 8, []string{"process is not defined", "no environment variables"}},
		{"require", "const fs = require('fs');\nreturn 1", 1, 12, []string{"require is not defined: the sandbox has no modules", "standard JavaScript built-ins"}},
		{"fetch", "const r = await fetch('http://x');\nreturn 1", 1, 17, []string{"fetch is not defined: the sandbox has no network access"}},
	}
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		host := echoHost("brakinglab.getSessions")
		for _, tc := range tests {
			_, se := runErr(t, sb, tc.src, host)
			if se.Kind != KindRuntime || se.Line != tc.line || (tc.line > 0 && se.Column != tc.col) {
				t.Errorf("%s: %s at %d:%d, want RUNTIME at %d:%d (%s)", tc.name, se.Kind, se.Line, se.Column, tc.line, tc.col, se.Message)
			}
			for _, p := range tc.wantPieces {
				if !strings.Contains(se.Message, p) {
					t.Errorf("%s: message %q lacks %q", tc.name, se.Message, p)
				}
			}
		}
	})
}

// TestPromisesStillWork checks that the guard on Promise members leaves
// every real use of promises alone.
func TestPromisesStillWork(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		host := echoHost("brakinglab.getSessions")
		src := `const p = brakinglab.getSessions({ a: 1 });
const ok = typeof p.then === "function" && p instanceof Promise && Object.prototype.toString.call(p) === "[object Promise]" && p.constructor === Promise;
const all = await Promise.all([p, Promise.resolve(2)]);
const r = await p.then((x: any) => x.args.a).finally(() => {});
const s = JSON.stringify({ p });
const has = "then" in p && !("filter" in p) && p.hasOwnProperty("x") === false;
return { ok, all: all.length, r, s, has };`
		res := mustRun(t, sb, src, host)
		if !jsonEqual(t, res.Value, `{"ok":true,"all":2,"r":1,"s":"{\"p\":\"[Promise: not awaited; add await before the call]\"}","has":true}`) {
			t.Errorf("value = %s", res.Value)
		}
	})
}
