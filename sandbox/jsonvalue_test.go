package sandbox

import (
	"os"
	"testing"

	"github.com/dop251/goja"
)

// TestJSONToValue checks the decoder against goja's own JSON.parse: the
// same values (compared by JSON.stringify in the runtime), the same
// rejections.
func TestJSONToValue(t *testing.T) {
	fixture, err := os.ReadFile("testdata/bench/fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	valid := []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e3`, `-12`, `123456789012345678901234`, `9007199254740993`,
		`"plain"`, `"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00"`, `"héllo ✓"`,
		` { "a" : [ 1 , { "b" : null } ] , "c" : "d" } `,
		`{"a":1,"a":2}`, `{"__proto__":{"polluted":1}}`, `[[[[[]]]]]`, `{"":""}`,
		string(fixture),
	}
	invalid := []string{
		``, ` `, `{`, `[1,]`, `{"a":1,}`, `{a:1}`, `'x'`, `01`, `1.`, `.5`, `1e`, `+1`, `tru`, `nul`, `"unterminated`,
		"\"ctrl \x01\"", `[1] x`, `{"a" 1}`, `NaN`, `-`, `"\x"`,
	}
	vm := goja.New()
	parse, _ := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("parse"))
	stringify, _ := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("stringify"))
	protoOf, _ := goja.AssertFunction(vm.Get("Object").ToObject(vm).Get("getPrototypeOf"))
	for _, in := range valid {
		want, err := parse(goja.Undefined(), vm.ToValue(in))
		if err != nil {
			t.Fatalf("JSON.parse(%q): %v", in, err)
		}
		got, err := jsonToValue(vm, []byte(in))
		if err != nil {
			t.Errorf("jsonToValue(%q): %v", in, err)
			continue
		}
		ws, _ := stringify(goja.Undefined(), want)
		gs, _ := stringify(goja.Undefined(), got)
		if !ws.SameAs(gs) {
			t.Errorf("jsonToValue(%q) = %v, JSON.parse gives %v", in, gs, ws)
		}
		if in == `-0` && !got.SameAs(want) {
			t.Errorf("-0 lost its sign")
		}
	}
	// "__proto__" is an own property, not the prototype.
	v, _ := jsonToValue(vm, []byte(`{"__proto__":{"polluted":1}}`))
	if p, _ := protoOf(goja.Undefined(), v); !p.SameAs(vm.Get("Object").ToObject(vm).Get("prototype")) {
		t.Error("__proto__ key changed the prototype")
	}
	for _, in := range invalid {
		if _, err := parse(goja.Undefined(), vm.ToValue(in)); err == nil {
			t.Fatalf("JSON.parse accepts %q; fix the test", in)
		}
		if v, err := jsonToValue(vm, []byte(in)); err == nil {
			t.Errorf("jsonToValue(%q) = %v, want an error", in, v)
		}
	}
}

// BenchmarkJSONDecode compares the decoder with goja's JSON.parse on the
// largest fixture result.
func BenchmarkJSONDecode(b *testing.B) {
	fixture, err := os.ReadFile("testdata/bench/fixture.json")
	if err != nil {
		b.Fatal(err)
	}
	vm := goja.New()
	b.Run("jsonToValue", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := jsonToValue(vm, fixture); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("JSON.parse", func(b *testing.B) {
		parse, _ := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("parse"))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := parse(goja.Undefined(), vm.ToValue(string(fixture))); err != nil {
				b.Fatal(err)
			}
		}
	})
}
