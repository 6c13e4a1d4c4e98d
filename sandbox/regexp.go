package sandbox

import (
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"
)

// regexpMatchTimeout bounds one backtracking regular-expression match.
// goja's backtracking engine (regexp2) ignores vm.Interrupt, so without it
// a catastrophic pattern runs past any execution timeout.
const regexpMatchTimeout = 500 * time.Millisecond

var regexpOnce sync.Once

// boundRegexps sets regexp2's match timeout for the process. It is a
// process-wide setting of that package and applies to regexps compiled
// after it, so it runs before any program is compiled.
func boundRegexps() {
	regexpOnce.Do(func() { regexp2.DefaultMatchTimeout = regexpMatchTimeout })
}

// wrapRegExpExec replaces RegExp.prototype.exec and test with wrappers
// that turn a timed-out match, which goja reports as "no match", into an
// error the script sees. Once exec is not the builtin, goja routes match,
// matchAll, replace, search and split through it; test calls the matcher
// directly, so it is wrapped too.
func (e *execution) wrapRegExpExec() error {
	vm := e.vm
	proto := vm.Get("RegExp").ToObject(vm).Get("prototype").ToObject(vm)
	for _, method := range []string{"exec", "test"} {
		orig, ok := goja.AssertFunction(proto.Get(method))
		if !ok {
			continue
		}
		fn := vm.ToValue(func(call goja.FunctionCall) goja.Value {
			start := time.Now()
			v, err := orig(call.This, call.Arguments...)
			if err != nil {
				panic(err)
			}
			if !v.ToBoolean() && time.Since(start) >= regexpMatchTimeout*9/10 {
				src := ""
				if o, ok := call.This.(*goja.Object); ok {
					src = valueString(o.Get("source"))
				}
				e.throwError(e.rangeErrCtor, "the regular expression /%s/ took longer than %s on this input and was stopped (catastrophic backtracking). Simplify the pattern (avoid nested quantifiers such as (a+)+ and backreferences) or match smaller pieces of text.", cut(src, 80), regexpMatchTimeout)
			}
			return v
		}).ToObject(vm)
		if err := nameFunction(vm, fn, method); err != nil {
			return err
		}
		if err := proto.DefineDataProperty(method, fn, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return err
		}
	}
	return nil
}
