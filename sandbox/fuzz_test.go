package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// FuzzRun feeds arbitrary source to an in-process sandbox: every input
// must end in a result or an *Error, never a panic or a hang.
func FuzzRun(f *testing.F) {
	for _, seed := range []string{
		"return 1", "let x = ;", "throw 1", "await ns.f({})", "return ns.nope()", "})(); (async () => {",
		"/*", "`${", "return new Proxy({}, { get() { throw 1 } })", "for await (const x of [1]) {}",
		"class A { #x = 1 }; return new A()", "return [1, 2, 3].map(String)", "\x00\xff", "return eval",
	} {
		f.Add(seed)
	}
	sb, err := New(&Options{Mode: ModeInProcess, Limits: Limits{Timeout: 200 * time.Millisecond}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = sb.Close() })
	host := echoHost("ns.f")
	f.Fuzz(func(t *testing.T, src string) {
		res, err := sb.Run(context.Background(), src, host)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Run(%q) error %T %v, want *Error", src, err, err)
			}
			if e.Kind == KindInternal {
				t.Fatalf("Run(%q): internal error %v", src, e)
			}
			return
		}
		if !json.Valid(res.Value) {
			t.Fatalf("Run(%q) value %q is not JSON", src, res.Value)
		}
	})
}

// FuzzJSONToValue checks the host-result decoder against goja's JSON.parse
// on arbitrary input: both accept the same texts and build equal values.
func FuzzJSONToValue(f *testing.F) {
	for _, seed := range []string{`{}`, `[1,"a",null,true]`, `{"a":{"b":[1.5e3,-0]}}`, `"\u00e9\n"`, `{"__proto__":1}`, `01`, `[1,]`} {
		f.Add([]byte(seed))
	}
	vm := goja.New()
	parse, _ := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("parse"))
	stringify, _ := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("stringify"))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, gerr := jsonToValue(vm, in)
		if !json.Valid(in) {
			if gerr == nil {
				t.Fatalf("jsonToValue accepted invalid JSON %q", in)
			}
			return
		}
		want, werr := parse(goja.Undefined(), vm.ToValue(string(in)))
		if werr != nil {
			return // goja rejects some valid JSON (numbers out of float64 range)
		}
		if gerr != nil {
			// Only nesting beyond maxJSONDepth may be refused.
			return
		}
		ws, _ := stringify(goja.Undefined(), want)
		gs, _ := stringify(goja.Undefined(), got)
		if !ws.SameAs(gs) {
			t.Fatalf("jsonToValue(%q) = %v, JSON.parse gives %v", in, gs, ws)
		}
	})
}
