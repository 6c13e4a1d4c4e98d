package sandbox

import (
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
			parts := make([]string, len(call.Arguments))
			for i, a := range call.Arguments {
				if _, sym := a.(*goja.Symbol); !sym {
					if s, ok := a.Export().(string); ok {
						parts[i] = s
						continue
					}
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

// formatArg formats one non-string console argument; script code it runs
// (toJSON) may throw, which propagates to the script like in Node.
func (e *execution) formatArg(a goja.Value) string {
	s, err := e.format(goja.Undefined(), a)
	if err != nil {
		panic(err)
	}
	return s.String()
}

// nameFunction sets a native function's name so toString shows it rather
// than a Go symbol.
func nameFunction(vm *goja.Runtime, fn *goja.Object, name string) error {
	return fn.DefineDataProperty("name", vm.ToValue(name), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
}
