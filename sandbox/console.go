package sandbox

import (
	"math/big"
	"reflect"
	"strings"

	"github.com/dop251/goja"
)

// consoleLevels maps console methods to log levels.
var consoleLevels = []string{"log", "info", "warn", "error", "debug"}

// bindConsole installs console.log/info/warn/error/debug (and trace as
// debug), writing to the execution's capped output.
func (e *execution) bindConsole() error {
	vm := e.vm
	console := vm.NewObject()
	for _, level := range append(consoleLevels, "trace") {
		lvl := level
		if lvl == "trace" {
			lvl = "debug"
		}
		fn := vm.ToValue(func(call goja.FunctionCall) goja.Value {
			if e.out.truncated {
				return goja.Undefined() // dropped anyway: skip formatting
			}
			parts := make([]string, len(call.Arguments))
			for i, a := range call.Arguments {
				// A string prints raw. (Checked without Export, which would
				// copy a whole object into Go maps first.)
				if goja.IsString(a) {
					parts[i] = e.prog.mapRawStack(a.String())
					continue
				}
				parts[i] = e.formatArg(a)
			}
			e.out.log(lvl, strings.Join(parts, " "))
			return goja.Undefined()
		}).ToObject(vm)
		if err := nameFunction(vm, fn, level); err != nil {
			return err
		}
		if err := console.Set(level, fn); err != nil {
			return err
		}
	}
	return vm.Set("console", console)
}

// formatArg formats one console argument like Node: strings raw, errors
// as their stack, other objects as JSON (nested errors as "Name: message",
// cycles and BigInts shown in place instead of failing). Script code it runs (toJSON) may
// throw; the exception propagates to the script as in Node.
func (e *execution) formatArg(a goja.Value) string {
	switch v := a.(type) {
	case *goja.Symbol:
		return symbolText(v)
	case *goja.Object:
		if _, ok := goja.AssertFunction(v); ok {
			return functionText(v)
		}
		if v.ClassName() == "Error" {
			return e.errorText(v)
		}
		// Plain JSON first; the replacer, three times slower, only when
		// plain JSON fails (cycles, BigInt).
		s, err := e.stringify(goja.Undefined(), v)
		if err != nil {
			if s, err = e.stringify(goja.Undefined(), v, e.jsonReplacer()); err != nil {
				panic(err)
			}
		}
		if goja.IsUndefined(s) {
			return v.String()
		}
		return s.String()
	}
	if isBigInt(a) {
		return a.String() + "n"
	}
	return a.String()
}

// jsonReplacer returns the native JSON.stringify replacer formatArg uses;
// a native replacer costs far less per value than a JavaScript one.
func (e *execution) jsonReplacer() goja.Value {
	seen := map[*goja.Object]bool{}
	return e.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		x := call.Argument(1)
		switch v := x.(type) {
		case *goja.Symbol:
			return e.vm.ToValue(symbolText(v))
		case *goja.Object:
			if _, ok := goja.AssertFunction(v); ok {
				return e.vm.ToValue(functionText(v))
			}
			if seen[v] {
				return e.vm.ToValue("[Circular]")
			}
			seen[v] = true
			if v.ClassName() == "Error" {
				return e.vm.ToValue(e.errorText(v))
			}
		default:
			if isBigInt(x) {
				return e.vm.ToValue(x.String() + "n")
			}
		}
		return x
	})
}

// errorText is an Error's stack in TypeScript coordinates (or its
// "Name: message"), followed by its other own properties as JSON.
func (e *execution) errorText(o *goja.Object) string {
	s := errorMessage(o)
	if st := o.Get("stack"); st != nil && !goja.IsUndefined(st) && st.String() != "" {
		s = e.prog.cleanStack(st.String())
	}
	extra := e.vm.NewObject()
	n := 0
	for _, k := range o.Keys() {
		if k != "message" && k != "stack" {
			_ = extra.Set(k, o.Get(k))
			n++
		}
	}
	if n > 0 {
		s += " " + e.formatArg(extra)
	}
	return s
}

// symbolText is how String(symbol) prints a symbol.
func symbolText(s *goja.Symbol) string { return "Symbol(" + s.String() + ")" }

// functionText is how Node prints a function.
func functionText(f *goja.Object) string {
	name := valueString(f.Get("name"))
	if name == "" {
		name = "anonymous"
	}
	return "[Function: " + name + "]"
}

var bigIntType = reflect.TypeOf((*big.Int)(nil))

func isBigInt(v goja.Value) bool {
	return v != nil && v.ExportType() == bigIntType
}

// nameFunction sets a native function's name so toString shows it rather
// than a Go symbol.
func nameFunction(vm *goja.Runtime, fn *goja.Object, name string) error {
	return fn.DefineDataProperty("name", vm.ToValue(name), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
}
