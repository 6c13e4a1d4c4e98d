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
const regexpMatchTimeout = time.Second

var regexpOnce sync.Once

// boundRegexps sets regexp2's match timeout for the process. It is a
// process-wide setting of that package; it affects only regexps compiled
// with regexp2 after the first Sandbox is created.
func boundRegexps() {
	regexpOnce.Do(func() { regexp2.DefaultMatchTimeout = regexpMatchTimeout })
}

// wrapRegExpExec replaces RegExp.prototype.exec with a wrapper that turns
// a timed-out match, which goja reports as "no match", into an error the
// script sees. Every regexp operation (test, match, replace, split…) goes
// through exec once it is not the builtin.
func (e *execution) wrapRegExpExec() error {
	vm := e.vm
	proto := vm.Get("RegExp").ToObject(vm).Get("prototype").ToObject(vm)
	orig, ok := goja.AssertFunction(proto.Get("exec"))
	if !ok {
		return nil
	}
	exec := vm.ToValue(func(call goja.FunctionCall) goja.Value {
		start := time.Now()
		v, err := orig(call.This, call.Arguments...)
		if err != nil {
			panic(err)
		}
		if goja.IsNull(v) && time.Since(start) >= regexpMatchTimeout*9/10 {
			src := ""
			if o, ok := call.This.(*goja.Object); ok {
				src = valueString(o.Get("source"))
			}
			e.throwError(e.rangeErrCtor, "the regular expression /%s/ took longer than %s on this input and was stopped (catastrophic backtracking). Simplify the pattern (avoid nested quantifiers such as (a+)+ and backreferences) or match smaller pieces of text.", cut(src, 80), regexpMatchTimeout)
		}
		return v
	}).ToObject(vm)
	if err := nameFunction(vm, exec, "exec"); err != nil {
		return err
	}
	return proto.DefineDataProperty("exec", exec, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}
