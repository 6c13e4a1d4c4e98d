package sandbox

// Binding the host into the runtime: one object per namespace, whose
// methods are host functions (hostFunc) or free functions (freeFunc).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/brakinglab/codemode-go/internal/jsident"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dop251/goja"

	suggestpkg "github.com/brakinglab/codemode-go/internal/suggest"
)

// bindHost installs one object per namespace whose methods call the host.
// Each namespace is a proxy so a misspelled function fails with a hint.
func (e *execution) bindHost() error {
	vm := e.vm
	free := freeNamespaces(e.host)
	sub := map[string]bool{}
	if sh, ok := e.host.(SubprogramHost); ok {
		for _, ns := range sh.SubprogramNamespaces() {
			sub[ns] = true
		}
	}
	for ns, names := range e.host.Functions() {
		if !jsident.Valid(ns) {
			return &Error{Kind: KindInternal, Message: fmt.Sprintf("host namespace %q is not a JavaScript identifier", ns)}
		}
		if vm.GlobalObject().Get(ns) != nil {
			return &Error{Kind: KindInternal, Message: fmt.Sprintf("host namespace %q would replace a JavaScript global; choose another name", ns)}
		}
		native := e.hostFunc
		if free[ns] {
			native = e.freeFunc
		}
		var proxy goja.Value
		var err error
		if sub[ns] {
			proxy, err = e.subNamespace(ns, 0)
		} else {
			proxy, err = e.namespaceObject(ns, names, native)
		}
		if err != nil {
			return err
		}
		if err := vm.Set(ns, proxy); err != nil {
			return err
		}
	}
	return nil
}

// namespaceObject makes the object bound as namespace ns: one method per
// name, made by native, behind a proxy so that a misspelled function
// fails with a hint.
func (e *execution) namespaceObject(ns string, names []string, native func(string) func(goja.FunctionCall) goja.Value) (goja.Value, error) {
	vm := e.vm
	target := vm.NewObject()
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	sorted = slices.Compact(sorted)
	for _, name := range sorted {
		fn := vm.ToValue(native(ns + "." + name)).ToObject(vm)
		if err := nameFunction(vm, fn, name); err != nil {
			return nil, err
		}
		if err := target.DefineDataProperty(name, fn, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
			return nil, err
		}
	}
	nsName := ns
	proxy := vm.NewProxy(target, &goja.ProxyTrapConfig{
		Get: func(t *goja.Object, prop string, receiver goja.Value) goja.Value {
			if v := t.Get(prop); v != nil {
				return v
			}
			switch prop {
			case "then", "toJSON", "constructor", "inspect", "length":
				return goja.Undefined()
			}
			e.throwTypeError("%s", e.unknownFunction(nsName, prop, sorted))
			return nil
		},
		Set: func(*goja.Object, string, goja.Value, goja.Value) bool { return false },
		DeleteProperty: func(*goja.Object, string) bool {
			return false
		},
	})
	return vm.ToValue(proxy), nil
}

// unknownFunction explains ns.prop, which the namespace does not hold
// (names, sorted): why the host withholds it from this execution
// (Withholder), else the namespace that does hold it, else the name it
// most likely misspells, else the host's own suggestions (Explainer),
// else every name, counted so a cut list says it was cut.
func (e *execution) unknownFunction(ns, prop string, names []string) string {
	if s := e.explain("withheld", ns+"."+prop); s != "" {
		return s
	}
	msg := ns + "." + prop + " is not a function."
	var elsewhere []string
	for other, fns := range e.host.Functions() {
		if other != ns && slices.Contains(fns, prop) {
			elsewhere = append(elsewhere, other+"."+prop)
		}
	}
	if len(elsewhere) > 0 {
		sort.Strings(elsewhere)
		return msg + " " + prop + " is in another namespace: call " + strings.Join(elsewhere, " or ") + "(…)."
	}
	if best := suggestpkg.Closest(prop, names); best != "" {
		return msg + " Did you mean " + best + "?"
	}
	if s := e.explain("suggest", ns+"."+prop); s != "" {
		return msg + " " + s
	}
	return msg + " " + suggest(prop, names)
}

// maxListedNames bounds the names an unknown-function error lists.
const maxListedNames = 60

// suggest names the closest function, or lists what exists, saying how
// many it left out.
func suggest(name string, names []string) string {
	if best := suggestpkg.Closest(name, names); best != "" {
		return "Did you mean " + best + "?"
	}
	if len(names) == 0 {
		return "This namespace has no functions."
	}
	if len(names) > maxListedNames {
		return fmt.Sprintf("The first %d of its %d functions: %s, …", maxListedNames, len(names), strings.Join(names[:maxListedNames], ", "))
	}
	return fmt.Sprintf("Its %d functions: %s.", len(names), strings.Join(names, ", "))
}

// hostFunc returns the native function bound as name ("ns.fn"): it takes
// one optional argument object, returns a Promise, and runs the host call
// on its own goroutine.
func (e *execution) hostFunc(name string) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		vm := e.vm
		if len(call.Arguments) > 1 {
			e.throwTypeError("%s", e.positional(name, len(call.Arguments)))
		}
		args := json.RawMessage("{}")
		var undef []string
		if a := call.Argument(0); !goja.IsUndefined(a) {
			undef = undefinedMembers(a)
			s, err := e.stringify(goja.Undefined(), a)
			if err != nil {
				if hint := e.cycleHint(a, "arguments"); hint != "" {
					e.throwTypeError("the arguments to %s have a circular reference: %s. Pass plain data: identifiers and filters", name, hint)
				}
				panic(err)
			}
			if goja.IsUndefined(s) {
				e.throwTypeError("%s takes an object argument; a %s cannot be sent", name, kindOf(a))
			}
			args = json.RawMessage(s.String())
			if args[0] != '{' {
				if shape := e.explain("shape", name); shape != "" {
					e.throwTypeError("%s takes one argument, an object with named members; got %s. Call it as %s(%s).", name, jsonKind(args), name, shape)
				}
			}
		}
		id := len(e.calls)
		promise, resolve, reject := vm.NewPromise()
		if len(args) > maxCallArgsBytes {
			msg := callArgsTooLarge(name, len(args))
			line, col := e.sitePosition(e.callSite())
			e.calls = append(e.calls, CallRecord{Name: name, Outcome: OutcomeRejected, Error: msg, Line: line, Column: col})
			if rerr := reject(e.newJSError(e.errorCtor, msg)); rerr != nil {
				panic(rerr)
			}
			return vm.ToValue(promise)
		}
		if e.made >= e.lim.MaxCalls {
			if !e.callLimit { // record the first refusal only: a script may retry forever
				line, col := e.sitePosition(e.callSite())
				e.calls = append(e.calls, CallRecord{Name: name, Outcome: OutcomeRejected, Error: "call limit reached", Line: line, Column: col})
			}
			e.callLimit = true
			if e.refused++; e.refused >= maxRefusedCalls {
				// A script that catches the refusal and calls again would
				// spin until the time limit, its logs hiding why.
				e.stop(KindCallLimit, fmt.Sprintf(
					"call limit reached: this execution made %d host calls, the most allowed, and kept calling after being refused (%d refused calls). Retrying a call that failed does not fix it: read the error the failed calls returned and change the arguments, or fetch more per call.", e.lim.MaxCalls, e.refused))
				return goja.Undefined()
			}
			err := e.newJSError(e.errorCtor, fmt.Sprintf(
				"call limit reached: this execution already made %d host calls, the most allowed. Fetch more per call (wider filters, batch arguments) or split the work across executions.", e.lim.MaxCalls))
			_ = err.Set("code", string(KindCallLimit))
			_ = err.Set("callsUsed", e.lim.MaxCalls)
			e.markCallError(err)
			if rerr := reject(err); rerr != nil {
				panic(rerr)
			}
			return vm.ToValue(promise)
		}
		from, subSite := e.callerSub()
		pos := CallPosition{Index: e.made, Answered: e.answered, From: from}
		e.made++
		pv := vm.ToValue(promise)
		if e.promiseFrom == nil {
			e.promiseFrom = make(map[*goja.Object]string, 4)
		}
		e.promiseFrom[pv.(*goja.Object)] = name // at most MaxCalls entries
		e.calls = append(e.calls, CallRecord{Name: name})
		if e.log != nil {
			e.log.calls = append(e.log.calls, loggedCall{name: name, args: args}) // at pos.Index
		}
		site, origin := e.callSiteOrigin()
		if origin == "" && e.mainDone {
			// A continuation of an async function the script did not
			// await: the frame that called it is gone.
			origin = e.lastOrigin
		}
		e.pending[id] = pendingCall{resolve: resolve, reject: reject, site: site, origin: origin, index: pos.Index, args: call.Argument(0), subSite: subSite}
		if len(undef) > 0 {
			e.warnUndefined(name, site, undef)
		}
		e.forgetMisses() // older reads explain nothing after this call
		if bytes.Contains(args, objectString) {
			e.warnObjectString(name, site, call.Argument(0))
		}
		if a := call.Argument(0); len(args) > 2 {
			e.warnLossyArgs(name, site, a, string(args))
		}
		if e.mainDone {
			// Nothing the script returned can depend on this call.
			e.unawaited = append(e.unawaited, unawaitedCall{id: id, site: site, origin: origin})
		}
		e.wg.Add(1)
		if ah, ok := e.host.(asyncHost); ok {
			start := time.Now()
			ah.startCall(withCallPosition(e.callCtx, pos), name, args, func(out json.RawMessage, warnings []string, err error) {
				e.results <- callResult{id: id, out: out, err: err, warnings: warnings, dur: time.Since(start), afterCancel: e.callCtx.Err() != nil} // buffered: never blocks
				e.wg.Done()
			})
		} else {
			go e.runCall(id, pos, name, args)
		}
		return pv
	}
}

// freeFunc returns the native function bound as name ("ns.fn") in a free
// namespace (see FreeHost): it sends its arguments as a JSON array, calls
// the host while the script waits and returns a settled Promise, without
// counting or recording the call.
func (e *execution) freeFunc(name string) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		vm := e.vm
		vals := make([]any, len(call.Arguments))
		for i, a := range call.Arguments {
			vals[i] = a
		}
		s, err := e.stringify(goja.Undefined(), vm.NewArray(vals...))
		if err != nil {
			panic(err)
		}
		promise, resolve, reject := vm.NewPromise()
		args := json.RawMessage(s.String())
		if len(args) > maxCallArgsBytes {
			if rerr := reject(e.newJSError(e.errorCtor, callArgsTooLarge(name, len(args)))); rerr != nil {
				panic(rerr)
			}
			return vm.ToValue(promise)
		}
		out, err := callHost(e.callCtx, e.host, name, args)
		if e.log != nil {
			e.log.free = append(e.log.free, loggedCall{name: name, args: args, out: out, err: err, answered: true})
		}
		var v goja.Value
		if err == nil {
			if v, err = e.parseResult(out); err == nil {
				e.keepResult(v, name, "", "")
			}
		}
		if err != nil {
			err = reject(e.hostError(err))
		} else {
			err = resolve(v)
		}
		if err != nil {
			panic(err)
		}
		return vm.ToValue(promise)
	}
}

// maxRefusedCalls is the number of calls refused for the call limit after
// which the execution ends with CALL_LIMIT, caught or not.
const maxRefusedCalls = 100
