package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/brakinglab/codemode-go/internal/jsident"
	"slices"
	"sort"
	"strconv"
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
	for ns, names := range e.host.Functions() {
		if !jsident.Valid(ns) {
			return &Error{Kind: KindInternal, Message: fmt.Sprintf("host namespace %q is not a JavaScript identifier", ns)}
		}
		if vm.GlobalObject().Get(ns) != nil {
			return &Error{Kind: KindInternal, Message: fmt.Sprintf("host namespace %q would replace a JavaScript global; choose another name", ns)}
		}
		target := vm.NewObject()
		sorted := append([]string(nil), names...)
		sort.Strings(sorted)
		sorted = slices.Compact(sorted)
		for _, name := range sorted {
			native := e.hostFunc
			if free[ns] {
				native = e.freeFunc
			}
			fn := vm.ToValue(native(ns + "." + name)).ToObject(vm)
			if err := nameFunction(vm, fn, name); err != nil {
				return err
			}
			if err := target.DefineDataProperty(name, fn, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
				return err
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
		if err := vm.Set(ns, proxy); err != nil {
			return err
		}
	}
	return nil
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
		pos := CallPosition{Index: e.made, Answered: e.answered}
		e.made++
		pv := vm.ToValue(promise)
		if e.promiseFrom == nil {
			e.promiseFrom = make(map[*goja.Object]string, 4)
		}
		e.promiseFrom[pv.(*goja.Object)] = name // at most MaxCalls entries
		e.calls = append(e.calls, CallRecord{Name: name})
		site, origin := e.callSiteOrigin()
		if origin == "" && e.mainDone {
			// A continuation of an async function the script did not
			// await: the frame that called it is gone.
			origin = e.lastOrigin
		}
		e.pending[id] = pendingCall{resolve: resolve, reject: reject, site: site, origin: origin, index: pos.Index}
		if len(undef) > 0 {
			e.warnUndefined(name, site, undef)
		}
		e.arrayReads = e.arrayReads[:0] // older reads explain nothing after this call
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
		var v goja.Value
		if err == nil {
			v, err = e.parseJSON(out)
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

// positional explains a call with n arguments to name, which takes one
// object, showing that object (Explainer) so the fix is one step.
func (e *execution) positional(name string, n int) string {
	msg := fmt.Sprintf("%s takes one argument, an object with named members; got %d arguments.", name, n)
	if shape := e.explain("shape", name); shape != "" {
		return msg + " Call it as " + name + "(" + shape + ")."
	}
	return msg + " Pass one object: " + name + "({ name: value, … })."
}

// maxUndefinedNames bounds the members one undefined-argument warning
// names.
const maxUndefinedNames = 5

// undefinedMembers lists the top-level members of an argument object whose
// value is undefined: JSON.stringify drops them, so the host never sees
// them, which is how { cornerIndex: c.cornerIndex } with a misspelled
// source silently becomes a call without cornerIndex.
func undefinedMembers(a goja.Value) []string {
	o, ok := a.(*goja.Object)
	if !ok || o.ClassName() == "Array" {
		return nil
	}
	var names []string
	for _, k := range o.Keys() {
		if v := o.Get(k); v == nil || goja.IsUndefined(v) {
			if names = append(names, k); len(names) == maxUndefinedNames {
				break
			}
		}
	}
	return names
}

// warnUndefined tells the model which arguments of a call were undefined
// and therefore not sent.
func (e *execution) warnUndefined(name, site string, undef []string) {
	if len(e.warnings) >= maxHostWarnings {
		e.droppedWarnings++
		return
	}
	line, col := e.sitePosition(site)
	quoted := make([]string, len(undef))
	for i, u := range undef {
		quoted[i] = strconv.Quote(u)
	}
	verb, it := "was", "it"
	if len(undef) > 1 {
		verb, it = "were", "them"
	}
	list := strings.Join(quoted, ", ")
	if h := e.arrayReadHint(); h != "" {
		e.warnings = append(e.warnings, Warning{Kind: WarningUndefinedArgument, Function: name, Line: line, Column: col,
			Message: fmt.Sprintf("%s was called without %s: the value %s undefined, so the host never received %s. %s", name, list, verb, it, h)})
		return
	}
	e.warnings = append(e.warnings, Warning{Kind: WarningUndefinedArgument, Function: name, Line: line, Column: col,
		Message: fmt.Sprintf("%s was called without %s: the value %s undefined and JSON has no undefined, so the host never received %s. If you meant to pass a value, check the expression it comes from (a misspelled field name?); otherwise leave it out.", name, list, verb, it)})
}

// maxCallArgsBytes bounds the JSON arguments of one host call, in both
// modes. In worker mode the parent holds every call's arguments in its own
// memory, so without a bound twenty concurrent calls with a large string
// each could cost the host process hundreds of MiB.
const maxCallArgsBytes = 1 << 20

// callArgsTooLarge is the rejection of a call whose arguments are n bytes
// of JSON, over maxCallArgsBytes.
func callArgsTooLarge(name string, n int) string {
	return fmt.Sprintf("the arguments to %s are %d bytes of JSON, over the %d KiB limit for one host call: pass identifiers and filters, not bulk data", name, n, maxCallArgsBytes>>10)
}

// asyncHost is a Host that starts a call without needing a goroutine of
// its own: a worker's relay, whose answers arrive on the protocol reader.
// done must be called exactly once, from any goroutine, with the host's
// answer and the warnings it attached, and must not block. ctx ending asks
// the host to stop; done still reports what the host then returned.
type asyncHost interface {
	Host
	startCall(ctx context.Context, name string, args json.RawMessage, done func(out json.RawMessage, warnings []string, err error))
}

// runCall runs one host call on its own goroutine and posts the result.
func (e *execution) runCall(id int, pos CallPosition, name string, args json.RawMessage) {
	defer e.wg.Done()
	start := time.Now()
	r := callResult{id: id}
	ctx, sink := withWarnings(withCallPosition(e.callCtx, pos))
	func() {
		defer func() {
			if p := recover(); p != nil {
				r.out, r.err = nil, &hostPanic{name: name, value: fmt.Sprint(p)}
			}
		}()
		r.out, r.err = e.host.Call(ctx, name, args)
	}()
	r.warnings = sink.take()
	r.afterCancel = e.callCtx.Err() != nil
	r.dur = time.Since(start)
	e.results <- r // buffered for MaxCalls results: never blocks
}

// settle resolves or rejects the promise of a finished call on the loop
// goroutine; goja runs the continuations inside resolve/reject.
func (e *execution) settle(r callResult) error {
	pc := e.record(r)
	if r.err == nil {
		v, err := e.parseJSON(r.out)
		if err == nil {
			e.markArrayResult(v, e.calls[r.id].Name)
			return pc.resolve(v)
		}
		rec := &e.calls[r.id]
		rec.Outcome, rec.Error = OutcomeError, err.Error()
		rec.Line, rec.Column = e.sitePosition(pc.site)
		r.err = err
	}
	obj := e.hostError(r.err)
	e.markCallError(obj)
	if pc.site != "" {
		// Point the error at the call, since it was made on the loop.
		_ = obj.DefineDataProperty("stack", e.vm.ToValue(errorMessage(obj)+"\n"+pc.site), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	return pc.reject(obj)
}

// record takes a finished call off the pending list and records its
// outcome and warnings, without running any JavaScript. An error returned
// once the execution had cancelled the call's context is a cancellation:
// the host stopped because it was asked to.
func (e *execution) record(r callResult) pendingCall {
	pc := e.pending[r.id]
	delete(e.pending, r.id)
	rec := &e.calls[r.id]
	rec.Duration = r.dur
	switch {
	case r.err == nil:
		rec.Outcome = OutcomeOK
	case errors.Is(r.err, ErrOutcomeUnknown):
		// The host says the work may have been done, cancelled or not.
		rec.Outcome, rec.Error = OutcomeUnknown, callErrorText(r.err)
		rec.Line, rec.Column = e.sitePosition(pc.site)
	case r.afterCancel:
		rec.Outcome, rec.Error = OutcomeCancelled, r.err.Error()
	default:
		rec.Outcome, rec.Error = OutcomeError, callErrorText(r.err)
		// Where it failed, for a model whose script caught the error.
		rec.Line, rec.Column = e.sitePosition(pc.site)
	}
	if len(r.warnings) > 0 {
		line, col := e.sitePosition(pc.site)
		for _, m := range r.warnings {
			if len(e.warnings) >= maxHostWarnings {
				e.droppedWarnings++
				continue
			}
			e.warnings = append(e.warnings, Warning{Kind: WarningHost, Function: rec.Name, Line: line, Column: col, Message: m})
		}
	}
	return pc
}

// sitePosition is the TypeScript position of a call site from callSite.
func (e *execution) sitePosition(site string) (line, col int) {
	if site == "" {
		return 0, 0
	}
	return firstPosition(e.prog.cleanStack(site))
}

// callSite is the script's stack at a host call, as goja formats it.
func (e *execution) callSite() string {
	site, _ := e.callSiteOrigin()
	return site
}

// callSiteOrigin is callSite, and the position ("agent.ts:L:C") of the
// outermost frame when the call was made inside functions the script
// called directly (no built-in such as forEach in between): where an
// async function was called, which is what a model must await if the
// call is left unawaited. origin is "" for a call made by the main body.
func (e *execution) callSiteOrigin() (site, origin string) {
	var b strings.Builder
	frames := e.vm.CaptureCallStack(maxFrames+1, nil)
	inner := 0
	for inner < len(frames) && frames[inner].SrcName() != sourceName {
		inner++ // the host function itself
	}
	chain := frames[inner:]
	if e.inProgram && len(chain) > 0 {
		chain = chain[:len(chain)-1] // the program's own frame, which starts the main function
	}
	direct := 0
	for direct < len(chain) && chain[direct].SrcName() == sourceName {
		direct++
	}
	if direct > 1 && direct == len(chain) {
		p := chain[direct-1].Position()
		origin = sourceName + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
	}
	for _, f := range frames {
		if f.SrcName() != sourceName {
			continue
		}
		p := f.Position()
		b.WriteString("    at ")
		if n := f.FuncName(); n != "" {
			b.WriteString(n + " (" + sourceName + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column) + ")\n")
		} else {
			b.WriteString(sourceName + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n"), origin
}

// parseJSON turns a host result into a fresh JavaScript value.
func (e *execution) parseJSON(b json.RawMessage) (goja.Value, error) {
	if len(b) == 0 {
		return goja.Undefined(), nil
	}
	v, err := jsonToValue(e.vm, b)
	if err != nil {
		return nil, fmt.Errorf("the host returned a result that is not valid JSON")
	}
	return v, nil
}

// hostError converts a host error into a JavaScript Error: message is
// err.Error(); the properties of its JSON form, if it marshals to an
// object, are copied onto it.
func (e *execution) hostError(err error) *goja.Object {
	obj := e.newJSError(e.errorCtor, err.Error())
	m, ok := err.(json.Marshaler)
	if !ok {
		return obj
	}
	b, merr := m.MarshalJSON()
	if merr != nil || len(b) == 0 || b[0] != '{' {
		return obj
	}
	v, perr := e.parseJSON(b)
	if perr != nil {
		return obj
	}
	props := v.ToObject(e.vm)
	for _, k := range props.Keys() {
		if k == "message" || k == "stack" {
			continue
		}
		_ = obj.Set(k, props.Get(k))
	}
	return obj
}

// kindOf names the kind of a value JSON cannot hold.
func kindOf(v goja.Value) string {
	if _, ok := goja.AssertFunction(v); ok {
		return "function"
	}
	if _, ok := v.(*goja.Symbol); ok {
		return "symbol"
	}
	return "value of this kind"
}

// markCallError remembers o as the error a host call was rejected with
// (see execution.mainFailed).
func (e *execution) markCallError(o *goja.Object) {
	if e.callErrors == nil {
		e.callErrors = map[*goja.Object]struct{}{}
	}
	e.callErrors[o] = struct{}{}
}

// callErrorText is what a call record says about a host error: its
// message, then, compact, the members of its JSON object other than the
// message (a catalog validation error's issues). A script that catches
// the error and goes on leaves only the record to say why the call failed.
func callErrorText(err error) string {
	msg := err.Error()
	jm, ok := err.(json.Marshaler)
	if !ok {
		return msg
	}
	b, merr := jm.MarshalJSON()
	var m map[string]json.RawMessage
	if merr != nil || len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &m) != nil {
		return msg
	}
	delete(m, "message") // never copied onto the script's Error either
	delete(m, "stack")
	var e string
	if json.Unmarshal(m["error"], &e) == nil && e == msg {
		delete(m, "error")
	}
	if len(m) == 0 {
		return msg
	}
	rest, _ := json.Marshal(m)
	return msg + " " + string(rest)
}

// jsonKind names the kind of a JSON value that is not an object.
func jsonKind(v []byte) string {
	switch v[0] {
	case '"':
		return "a string"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
