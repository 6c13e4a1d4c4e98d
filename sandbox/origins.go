package sandbox

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// Where a value came from. A model writes against declarations, but for
// a tool known only by its schema it often guesses the result's shape:
// text.split(...) on { content: string }, graph.filter(...) on
// { entities, relations }, tree.content.filter(...) on a string of JSON.
// goja then says "Object has no member 'split'", which names neither the
// value nor the call. So the sandbox keeps the latest host results (their
// function and call site) and records the reads that miss them, and an
// error or warning on such a value names the call, its line and its
// declared result (ResultDescriber), with the fix.
//
// Objects and arrays a host call returns (the result and, for an object,
// its members; see jsonDecoder.marked) get a prototype between them and
// Object.prototype or Array.prototype, a proxy whose get trap answers
// what the real prototype has and otherwise records the read and returns
// undefined, as before; strings and numbers, which have no prototype of
// their own, get the object one under String.prototype and
// Number.prototype. A result gets no property (JSON, Object.keys, spread,
// for…in, "in" and instanceof see what they saw); only
// Object.getPrototypeOf tells.
//
// Marking happens only in a second run (see diagnose.go): an execution
// runs unmarked, and when it ends in an error or a warning a value's
// origin would explain, the script runs again, marked, with its host
// calls answered from the first run's log. Nothing is described until an
// error needs it. A marked execution pays, once, for two proxies and the
// String and Number prototypes (reached through a value: the String and
// Number globals are never built for it), and one slot of a small
// bounded slice per result kept and per read that missed; which call a
// missed value came from is found only when an error or a warning needs
// it, by looking for it in the kept results.

// Bounds: results kept (the latest), reads that missed, lookups of
// toString kept, and the values visited looking for a value's origin.
const (
	maxKeptResults  = 8
	maxMisses       = 8
	maxCoercions    = 4
	maxOriginVisits = 5000
)

// hostResult is one host call's result and where the call was made.
type hostResult struct {
	v    goja.Value
	fn   string
	site string // the script's stack at a counted call
	// subSite is, for a counted call a sub-program's code made, its frame
	// there ("    at sub:KEY:L:C\n").
	subSite string
	// frame is, for a call made without a site (a free call, a
	// sub-program), the innermost frame of its caller's code; nil when
	// there is none.
	frame *goja.StackFrame
}

// missedRead is one read of a member a value lacks, on a host result or
// a string or number.
type missedRead struct {
	field string
	recv  goja.Value
	frame goja.StackFrame // the innermost frame of code at the read, if any
	found bool            // frame is set
}

// origins is an execution's record of host results and missed reads.
// Nothing in it is described until an error or a warning needs it: a
// call that succeeds costs one slot of kept (made at the first result,
// bounded by maxKeptResults), and a missed read one slot of misses.
type origins struct {
	kept []hostResult
	// objProto and arrProto are the recording prototypes of result
	// objects and arrays; objProto is also put under String.prototype
	// and Number.prototype. objProto is made on the first result,
	// arrProto on the first array in one, both with trap.
	objProto, arrProto *goja.Object
	trap               goja.ProxyTrapConfig
	primed             bool
	vm                 *goja.Runtime
	// plainObject and plainArray are Object.prototype and
	// Array.prototype, once known.
	plainObject, plainArray *goja.Object
	misses                  []missedRead
	coerced                 []*goja.Object // result objects whose toString was looked up
	// ownProp is the runtime's Object.getOwnPropertyDescriptor, captured
	// before the script for the walk of sub-programs' results (see
	// originwalk.go), or nil; walkLeft is what the execution's walks may
	// still visit.
	ownProp  goja.Callable
	walkLeft int
}

// originFrames is how many frames are captured to find the script's
// innermost one: the native function or trap may come first.
const originFrames = 4

// originsOff turns the answer log and second runs off, for benchmarks
// and tests that compare against a run without them.
var originsOff bool

// keepResult marks v, the result of fn called at site and subSite (for a
// call made without a site, the caller's innermost frame is taken now),
// and keeps it as one of the latest results.
func (e *execution) keepResult(v goja.Value, fn, site, subSite string) {
	o := &e.origins
	if !e.marking {
		return
	}
	if !o.primed {
		e.primeOrigins()
	}
	r := hostResult{v: v, fn: fn, site: site, subSite: subSite}
	if site == "" {
		if f, ok := e.innerFrame(); ok {
			r.frame = &f
		}
	}
	o.keep(r)
}

// keepSubResult keeps v, what sub-program fn (a saved function, called
// from frame) returned, as one of the latest results. v, made by the
// sub-program's code, and the plain objects and arrays inside it get the
// recording prototype a decoded result has, by a walk that runs none of
// that code (see originwalk.go).
func (e *execution) keepSubResult(v goja.Value, fn string, frame *goja.StackFrame) {
	o := &e.origins
	if !e.marking {
		return
	}
	if !o.primed {
		e.primeOrigins()
	}
	if obj, ok := v.(*goja.Object); ok {
		o.markTree(obj)
	}
	o.keep(hostResult{v: v, fn: fn, frame: frame})
}

// keep adds r to the latest results.
func (o *origins) keep(r hostResult) {
	if o.kept == nil {
		o.kept = make([]hostResult, 0, maxKeptResults/2)
	}
	o.kept = pushBounded(o.kept, r, maxKeptResults)
}

// proxyType is what ExportType says of a Proxy, whose prototype and
// members are the script's traps.
var proxyType = reflect.TypeOf(goja.Proxy{})

// markMade gives obj, made by the script's code, its recording prototype
// if its prototype is still the plain Object.prototype or
// Array.prototype. Nothing it does runs the script's code.
func (o *origins) markMade(obj *goja.Object) {
	if obj.ExportType() == proxyType {
		return
	}
	switch obj.ClassName() {
	case "Object":
		if obj.Prototype() == o.plainObject {
			_ = obj.SetPrototype(o.objProto)
		}
	case "Array":
		if obj.Prototype() == o.arrayPrototype() {
			_ = obj.SetPrototype(o.arrayProto(obj))
		}
	}
}

// pushBounded appends x to s, dropping the oldest element when s holds
// max already.
func pushBounded[T any](s []T, x T, max int) []T {
	if len(s) >= max {
		copy(s, s[1:])
		s = s[:max-1]
	}
	return append(s, x)
}

// innerFrame returns the innermost frame of code that is not native: the
// script's (file sourceName) or a sub-program's (see codeView).
func (e *execution) innerFrame() (goja.StackFrame, bool) {
	var stack [originFrames]goja.StackFrame
	for _, f := range e.vm.CaptureCallStack(originFrames, stack[:0]) {
		if f.SrcName() != "<native>" {
			return f, true
		}
	}
	return goja.StackFrame{}, false
}

// primeOrigins makes the recording prototypes and puts the object one
// under String.prototype and Number.prototype. It reaches those through
// a string and a number, not the String and Number globals, which goja
// would otherwise build in full.
func (e *execution) primeOrigins() {
	o := &e.origins
	o.primed = true
	vm := e.vm
	o.vm = vm
	o.trap.Get = e.resultMember
	strProto := vm.ToValue("").ToObject(vm).Prototype()
	o.plainObject = strProto.Prototype()
	o.objProto = o.recorder(o.plainObject)
	_ = strProto.SetPrototype(o.objProto)
	_ = vm.ToValue(0).ToObject(vm).Prototype().SetPrototype(o.objProto)
}

// recorder makes a recording prototype over proto: a proxy whose target
// inherits from proto.
func (o *origins) recorder(proto *goja.Object) *goja.Object {
	return o.vm.ToValue(o.vm.NewProxy(o.vm.CreateObject(proto), &o.trap)).(*goja.Object)
}

// arrayProto returns the recording prototype of result arrays, made from
// a's prototype (Array.prototype) the first time.
func (o *origins) arrayProto(a *goja.Object) *goja.Object {
	if o.arrProto == nil {
		if o.plainArray == nil {
			o.plainArray = a.Prototype()
		}
		o.arrProto = o.recorder(o.plainArray)
	}
	return o.arrProto
}

// resultMember is the get trap of the recording prototypes: of result
// objects and arrays, and of strings and numbers (under String.prototype
// and Number.prototype, so every read it sees on those has missed).
func (e *execution) resultMember(t *goja.Object, prop string, receiver goja.Value) goja.Value {
	if prop == "__proto__" { // an accessor: answer for the receiver, not the target
		if r, ok := receiver.(*goja.Object); ok {
			return r.Prototype()
		}
		return receiver.ToObject(e.vm).Prototype()
	}
	if v := t.Get(prop); v != nil {
		if prop == "toString" {
			if r, ok := receiver.(*goja.Object); ok && r.ClassName() == "Object" {
				// String(value), `${value}` or value + "": remembered for
				// the "[object Object]" warning (see warnObjectString).
				o := &e.origins
				if o.coerced == nil {
					o.coerced = make([]*goja.Object, 0, maxCoercions)
				}
				o.coerced = pushBounded(o.coerced, r, maxCoercions)
			}
		}
		return v
	}
	if !probed(prop) {
		e.noteMiss(prop, receiver)
	}
	return goja.Undefined()
}

// probed reports the members the runtime itself looks for on every value
// it resolves a promise with (then) or serialises (toJSON): not the
// script's reads, and too frequent to record.
func probed(prop string) bool { return prop == "then" || prop == "toJSON" }

// noteMiss records a read of field that receiver lacks, and the script's
// frame at the read.
func (e *execution) noteMiss(field string, receiver goja.Value) {
	o := &e.origins
	m := missedRead{field: field, recv: receiver}
	m.frame, m.found = e.innerFrame()
	if o.misses == nil {
		o.misses = make([]missedRead, 0, maxMisses)
	}
	o.misses = pushBounded(o.misses, m, maxMisses)
}

// forgetMisses drops the reads recorded so far: a host call starts, and
// older reads explain nothing after it.
func (e *execution) forgetMisses() {
	e.origins.misses = e.origins.misses[:0]
}

// origin finds v among the kept results, newest first: the result it is
// or is inside, and its path there (".content", "[0].name"; "" for the
// result itself). Objects are matched by identity, strings and numbers by
// value.
func (e *execution) origin(v goja.Value) (hostResult, string, bool) {
	visits := maxOriginVisits
	for i := len(e.origins.kept) - 1; i >= 0; i-- {
		r := e.origins.kept[i]
		if path, ok := e.origins.findValue(r.v, v, "", &visits); ok {
			return r, path, true
		}
		if visits <= 0 {
			break
		}
	}
	return hostResult{}, "", false
}

// findValue looks for want in v, depth first, and returns its path. It
// enters no Proxy and reads members with ownData, so it runs no getter
// of a saved function's code once getOwnPropertyDescriptor is captured.
func (o *origins) findValue(v, want goja.Value, path string, visits *int) (string, bool) {
	if *visits--; *visits < 0 || v == nil {
		return "", false
	}
	if same(v, want) {
		return path, true
	}
	obj, ok := v.(*goja.Object)
	if !ok || obj.ExportType() == proxyType {
		return "", false
	}
	switch obj.ClassName() {
	case "Array":
		n := int(obj.Get("length").ToInteger())
		for i := 0; i < n && *visits > 0; i++ {
			if p, ok := o.findValue(o.element(obj, i), want, path+"["+itoa(i)+"]", visits); ok {
				return p, true
			}
		}
	case "Object":
		for _, k := range obj.Keys() {
			if *visits <= 0 {
				break
			}
			if p, ok := o.findValue(o.ownData(obj, k), want, memberPath(path, k), visits); ok {
				return p, true
			}
		}
	}
	return "", false
}

// same is identity for objects and equality for strings and numbers.
func same(a, b goja.Value) bool {
	if ao, ok := a.(*goja.Object); ok {
		bo, ok := b.(*goja.Object)
		return ok && ao == bo
	}
	if _, ok := b.(*goja.Object); ok {
		return false
	}
	if goja.IsUndefined(a) || goja.IsNull(a) || goja.IsUndefined(b) || goja.IsNull(b) {
		return false
	}
	switch a.Export().(type) {
	case string, int64, float64:
		return a.StrictEquals(b)
	}
	return false
}

// resultLine is the line in v of the call that produced r, or 0 when it
// is not known or was made in other code.
func (e *execution) resultLine(r hostResult, v codeView) int {
	switch {
	case r.frame != nil:
		if r.frame.SrcName() != v.file {
			return 0
		}
		p := r.frame.Position()
		return v.original(p.Line, p.Column)
	case r.subSite != "":
		m := subFramePos.FindStringSubmatch(r.subSite)
		if m == nil || subFile(m[1]) != v.file {
			return 0
		}
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		return v.original(line, col)
	case r.site != "" && v.file == sourceName:
		line, _ := e.sitePosition(r.site)
		return line
	}
	return 0
}

// original is the line in v's code of line and col of its JavaScript, or
// 0.
func (v codeView) original(line, col int) int {
	l, _, ok := v.c.original(line, col)
	if !ok || l <= v.shift {
		return 0
	}
	return l - v.shift
}

// codeView is code a read can miss in: the script (file sourceName) or
// a sub-program's code (file subFile(key)), whose wrapper's first line
// shifts its lines by one.
type codeView struct {
	c     *compiled
	file  string
	shift int
}

// scriptView is the script's code.
func (e *execution) scriptView() codeView { return codeView{c: e.prog, file: sourceName} }

// line returns line n (1-based) of v's TypeScript.
func (v codeView) line(n int) (string, bool) {
	if n <= 0 {
		return "", false
	}
	lines := strings.Split(v.c.ts, "\n")
	if n+v.shift > len(lines) {
		return "", false
	}
	return lines[n+v.shift-1], true
}

// missPosition is the TypeScript position of a missed read in v, or 0, 0
// when it is not known; here is false when the read was made in other
// code.
func (e *execution) missPosition(m missedRead, v codeView) (line, col int, here bool) {
	if !m.found {
		return 0, 0, true
	}
	if m.frame.SrcName() != v.file {
		return 0, 0, false
	}
	p := m.frame.Position()
	line, col, ok := v.c.original(p.Line, p.Column)
	if !ok || line <= v.shift {
		return 0, 0, true
	}
	return line - v.shift, col, true
}
