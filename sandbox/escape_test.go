package sandbox

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/internal/leakcheck"
)

// TestEscapes checks that the code-generation and host-reaching paths a
// script could use are closed, with errors that say so.
func TestEscapes(t *testing.T) {
	denied := []struct{ name, src, want string }{
		{"constructor.constructor", `return constructor.constructor("return this")()`, "EvalError: The Function constructor is disabled"},
		{"function constructor via a function", `return (() => 1).constructor("return globalThis")()`, "EvalError: The Function constructor is disabled"},
		{"array constructor chain", `return [].constructor.constructor("return 1")()`, "EvalError: The Function constructor is disabled"},
		{"Function global", `return Function("return 1")()`, "EvalError: The Function constructor is disabled"},
		{"new Function", `return new Function("return 1")()`, "EvalError: The Function constructor is disabled"},
		{"Reflect.construct", `return Reflect.construct(Function, ["return 1"])()`, "EvalError: The Function constructor is disabled"},
		{"AsyncFunction constructor", `return await (async () => {}).constructor("return 1")()`, "EvalError: The AsyncFunction constructor is disabled"},
		{"GeneratorFunction constructor", `return (function* () {}).constructor("yield 1")().next()`, "EvalError: The GeneratorFunction constructor is disabled"},
		{"eval", `return eval("1 + 1")`, "EvalError: eval is disabled"},
		{"indirect eval", `return (0, globalThis.eval)("1")`, "EvalError: eval is disabled"},
		{"source map comment in eval", "return eval('1\\n//# sourceMappingURL=file:///dev/zero')", "EvalError: eval is disabled"},
		{"restoring the constructor", `Object.defineProperty(Function.prototype, "constructor", { value: 1 })`, "TypeError"},
		{"require", `return require("fs")`, "ReferenceError: require is not defined"},
		{"strict mode", "undeclared = 1", "ReferenceError: undeclared is not defined"},
	}
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		for _, tc := range denied {
			t.Run(tc.name, func(t *testing.T) {
				_, e := runErr(t, sb, tc.src, nil)
				if e.Kind != KindRuntime || !strings.HasPrefix(e.Message, tc.want) {
					t.Errorf("error = %v, want RUNTIME %q", e, tc.want)
				}
			})
		}
		t.Run("no host globals", func(t *testing.T) {
			res := mustRun(t, sb, `return ["require", "process", "fetch", "setTimeout", "setInterval", "XMLHttpRequest", "WebSocket", "Deno", "Bun", "module", "exports", "__dirname"].filter((n) => typeof (globalThis as any)[n] !== "undefined")`, echoHost("ns.f"))
			if string(res.Value) != "[]" {
				t.Errorf("globals present: %s", res.Value)
			}
		})
		t.Run("no Go symbols in function sources", func(t *testing.T) {
			res := mustRun(t, sb, `return [String(console.log), String(ns.f), ns.f.name, console.log.name]`, echoHost("ns.f"))
			if strings.Contains(string(res.Value), "github.com") || strings.Contains(string(res.Value), "func") && !strings.Contains(string(res.Value), "function") {
				t.Errorf("sources = %s", res.Value)
			}
			if !strings.Contains(string(res.Value), `"f","log"`) {
				t.Errorf("names = %s", res.Value)
			}
		})
		t.Run("source map comments in the program are not read", func(t *testing.T) {
			res := mustRun(t, sb, "//# sourceMappingURL=file:///dev/zero\nreturn 1\n//# sourceMappingURL=/etc/passwd", nil)
			if string(res.Value) != "1" {
				t.Errorf("value = %s", res.Value)
			}
		})
		t.Run("namespace cannot be modified", func(t *testing.T) {
			res := mustRun(t, sb, `const ns2: any = ns; try { ns2.f = () => 1 } catch {} try { delete ns2.f } catch {} return typeof ns.f`, echoHost("ns.f"))
			if string(res.Value) != `"function"` {
				t.Errorf("value = %s", res.Value)
			}
		})
	})
}

// TestFreshRuntime checks that nothing one execution changes is visible to
// the next: globals, prototypes, replaced builtins.
func TestFreshRuntime(t *testing.T) {
	host := echoHost("ns.f")
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		mustRun(t, sb, `
(Object.prototype as any).polluted = "yes";
(globalThis as any).leak = 1;
Array.prototype.map = function () { return ["hijacked"] } as any;
JSON.stringify = () => "hijacked";
JSON.parse = () => "hijacked";
console.log = () => {};
(ns as any).__proto__.evil = 1;
return [1].map((x) => x);`, host)
		res := mustRun(t, sb, `
console.log("still logging");
const r = await ns.f({ a: 1 });
return { polluted: ({} as any).polluted ?? null, leak: typeof (globalThis as any).leak, map: [1, 2].map((x) => x * 2), r };`, host)
		if !jsonEqual(t, res.Value, `{"polluted":null,"leak":"undefined","map":[2,4],"r":{"fn":"ns.f","args":{"a":1}}}`) {
			t.Errorf("second run = %s", res.Value)
		}
		if len(res.Logs) != 1 || res.Logs[0].Message != "still logging" {
			t.Errorf("logs = %+v", res.Logs)
		}
		// Within one execution, replacing JSON does not break the results
		// the engine produces.
		res = mustRun(t, sb, `JSON.stringify = () => "x"; JSON.parse = () => "x"; const r = await ns.f({ b: 2 }); console.log({ k: 1 }); return r;`, host)
		if !jsonEqual(t, res.Value, `{"fn":"ns.f","args":{"b":2}}`) || res.Logs[0].Message != `{"k":1}` {
			t.Errorf("with replaced JSON: %s %+v", res.Value, res.Logs)
		}
	})
}

// TestNoLeaks runs executions that end in every way and checks that no
// goroutine (host call, timer, loop, worker reader) outlives the sandbox.
func TestNoLeaks(t *testing.T) {
	defer leakcheck.VerifyNone(t, leakcheck.IgnoreCurrent())
	host := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){
		"ns.block": func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
		"ns.ok":    func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`1`), nil },
		"ns.panic": func(context.Context, json.RawMessage) (json.RawMessage, error) { panic("boom") },
	}}
	for _, m := range testModes {
		sb, err := New(&Options{Mode: m, PoolSize: 1, Limits: Limits{Timeout: 200 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		for _, src := range []string{
			"return await ns.ok()",
			"ns.block(); ns.block(); return 1",
			"await ns.block()",
			"for (;;) {}",
			"await new Promise(() => {})",
			"try { await ns.panic() } catch {} return 1",
			"throw new Error('x')",
			"let x = ;",
		} {
			_, _ = sb.Run(context.Background(), src, host)
		}
		if err := sb.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
