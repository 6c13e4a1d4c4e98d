package sandbox

import (
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
// It costs nothing until a read misses: objects and arrays a host call
// returns (the result and, for an object, its members; see
// jsonDecoder.marked) get a prototype between them and Object.prototype or
// Array.prototype, a proxy whose get trap answers what the real
// prototype has and otherwise records the read and returns undefined,
// as before; strings and numbers, which have no prototype of their own,
// get one such proxy under String.prototype and Number.prototype. A
// result gets no property (JSON, Object.keys, spread, for…in, "in" and
// instanceof see what they saw); only Object.getPrototypeOf tells. Which
// call a missed value came from is found when an error needs it, by
// looking for it in the kept results.

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
	v      goja.Value
	fn     string
	site   string            // the script's stack at a counted call
	frames []goja.StackFrame // or, for a free call, its stack unformatted
}

// missedRead is one read of a member a value lacks, on a host result or
// a string or number.
type missedRead struct {
	field string
	recv  goja.Value
	frame goja.StackFrame // the script's frame at the read, if any
	found bool            // frame is set
}

// origins is an execution's record of host results and missed reads.
type origins struct {
	kept []hostResult
	// objProto and arrProto are the recording prototypes of result
	// objects and arrays; primProto is under String.prototype and
	// Number.prototype. All are made on the first result.
	objProto, arrProto *goja.Object
	primed             bool
	misses             []missedRead
	coerced            []*goja.Object // result objects whose toString was looked up
}

// originsOff turns the recording off, for benchmarks that compare its
// cost (BenchmarkResultOrigins).
var originsOff bool

// keepResult marks v, the result of host function fn called at site (or
// frames), and keeps it as one of the latest results.
func (e *execution) keepResult(v goja.Value, fn, site string, frames []goja.StackFrame) {
	o := &e.origins
	if originsOff {
		return
	}
	if !o.primed {
		e.primeOrigins()
	}
	if len(o.kept) == maxKeptResults {
		copy(o.kept, o.kept[1:])
		o.kept = o.kept[:maxKeptResults-1]
	}
	o.kept = append(o.kept, hostResult{v: v, fn: fn, site: site, frames: frames})
}

// primeOrigins makes the recording prototypes and puts the primitive one
// under String.prototype and Number.prototype.
func (e *execution) primeOrigins() {
	o := &e.origins
	o.primed = true
	vm := e.vm
	objectProto := vm.NewObject().Prototype()
	trap := &goja.ProxyTrapConfig{Get: e.resultMember}
	o.objProto = vm.ToValue(vm.NewProxy(vm.CreateObject(objectProto), trap)).(*goja.Object)
	o.arrProto = vm.ToValue(vm.NewProxy(vm.CreateObject(vm.NewArray().Prototype()), trap)).(*goja.Object)
	prim := vm.ToValue(vm.NewProxy(vm.CreateObject(objectProto), &goja.ProxyTrapConfig{Get: e.primitiveMember})).(*goja.Object)
	for _, ctor := range []string{"String", "Number"} {
		if c, ok := vm.Get(ctor).(*goja.Object); ok {
			if p, ok := c.Get("prototype").(*goja.Object); ok {
				_ = p.SetPrototype(prim)
			}
		}
	}
}

// resultMember is the get trap of the prototypes of result objects and
// arrays.
func (e *execution) resultMember(t *goja.Object, prop string, receiver goja.Value) goja.Value {
	if prop == "__proto__" { // an accessor: answer for the receiver, not the target
		if r, ok := receiver.(*goja.Object); ok {
			return r.Prototype()
		}
	}
	if v := t.Get(prop); v != nil {
		if prop == "toString" {
			if r, ok := receiver.(*goja.Object); ok && r.ClassName() == "Object" {
				// String(value), `${value}` or value + "": remembered for
				// the "[object Object]" warning (see warnObjectString).
				o := &e.origins
				if len(o.coerced) == maxCoercions {
					o.coerced = o.coerced[1:]
				}
				o.coerced = append(o.coerced, r)
			}
		}
		return v
	}
	if !probed[prop] {
		e.noteMiss(prop, receiver)
	}
	return goja.Undefined()
}

// probed are the members the runtime itself looks for on every value it
// resolves a promise with (then) or serialises (toJSON): not the
// script's reads, and too frequent to record.
var probed = map[string]bool{"then": true, "toJSON": true}

// primitiveMember is the get trap under String.prototype and
// Number.prototype: every read it sees has missed.
func (e *execution) primitiveMember(t *goja.Object, prop string, receiver goja.Value) goja.Value {
	if v := t.Get(prop); v != nil {
		return v
	}
	e.noteMiss(prop, receiver)
	return goja.Undefined()
}

// noteMiss records a read of field that receiver lacks.
func (e *execution) noteMiss(field string, receiver goja.Value) {
	o := &e.origins
	if len(o.misses) == maxMisses {
		o.misses = o.misses[1:]
	}
	m := missedRead{field: field, recv: receiver}
	for _, f := range e.vm.CaptureCallStack(3, nil) {
		if f.SrcName() == sourceName {
			m.frame, m.found = f, true
			break
		}
	}
	o.misses = append(o.misses, m)
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
		if path, ok := findValue(r.v, v, "", &visits); ok {
			return r, path, true
		}
		if visits <= 0 {
			break
		}
	}
	return hostResult{}, "", false
}

// findValue looks for want in v, depth first, and returns its path.
func findValue(v, want goja.Value, path string, visits *int) (string, bool) {
	if *visits--; *visits < 0 || v == nil {
		return "", false
	}
	if same(v, want) {
		return path, true
	}
	o, ok := v.(*goja.Object)
	if !ok {
		return "", false
	}
	switch o.ClassName() {
	case "Array":
		n := int(o.Get("length").ToInteger())
		for i := 0; i < n && *visits > 0; i++ {
			if p, ok := findValue(o.Get(itoa(i)), want, path+"["+itoa(i)+"]", visits); ok {
				return p, true
			}
		}
	case "Object":
		for _, k := range o.Keys() {
			if *visits <= 0 {
				break
			}
			if p, ok := findValue(o.Get(k), want, memberPath(path, k), visits); ok {
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

// resultLine is the line of the call that produced r, or 0.
func (e *execution) resultLine(r hostResult) int {
	if r.site != "" {
		line, _ := e.sitePosition(r.site)
		return line
	}
	for _, f := range r.frames {
		if f.SrcName() != sourceName {
			continue
		}
		p := f.Position()
		if line, _, ok := e.prog.original(p.Line, p.Column); ok {
			return line
		}
	}
	return 0
}

// missPosition is the TypeScript position of a missed read, or 0, 0.
func (e *execution) missPosition(m missedRead) (int, int) {
	if !m.found {
		return 0, 0
	}
	p := m.frame.Position()
	line, col, ok := e.prog.original(p.Line, p.Column)
	if !ok {
		return 0, 0
	}
	return line, col
}
