package sandbox

import (
	"strings"

	"github.com/dop251/goja"
)

// Marking a saved function's result below its top level. A host result
// is JSON the sandbox decodes, so its objects are marked as they are made
// (jsonvalue.go). A sub-program's result is made by its code, which may
// have given it getters, Proxies or class instances: reading it from Go
// with Get could run that code. So the walk below reads only own data
// properties, through the runtime's own Object.getOwnPropertyDescriptor
// captured before the script ran (a descriptor answers an accessor with
// its functions, never by calling them), enters only ordinary objects
// whose prototype is Object.prototype (or null) and arrays whose
// prototype is Array.prototype, and gives each one that can take it
// (extensible, not yet marked) its recording prototype. Object.create(null)
// objects are walked but keep their null prototype: a prototype would
// give them members. A Proxy, a class instance, a Map, a typed array, a
// function, a frozen, sealed or non-extensible object is neither marked
// nor entered.
//
// The walk is bounded: maxMarkDepth levels, the first maxMarkElements
// elements of an array and maxMarkMembers members of an object,
// maxMarkVisits objects and members per result, maxMarkVisitsTotal per
// execution; past a bound it stops, leaving the rest as it was. A marked
// object is not entered again, so a cycle ends there. The result is
// returned unchanged either way; only Object.getPrototypeOf tells.

// Bounds of the walk of a sub-program's result. A list's rows are alike,
// and a script that misreads one misreads the first it reaches, so only
// the first maxMarkElements elements of an array and maxMarkMembers
// members of an object are entered: a descriptor costs about 9
// allocations, and a saved function returning a long list would
// otherwise pay one per member of every row. At its bound a walk costs
// about 28,000 allocations and 1.5 MB (BenchmarkSavedResultWalk, tree).
const (
	maxMarkDepth       = 32
	maxMarkVisits      = 2000
	maxMarkVisitsTotal = 5 * maxMarkVisits
	maxMarkElements    = 8
	maxMarkMembers     = 64
)

// captureOwnProp keeps the runtime's Object.getOwnPropertyDescriptor for
// the walk, when the program mentions namespace ns (a namespace of
// sub-programs). It must run before the script: the script could replace
// it. A script that does not mention ns pays nothing; one that reaches
// ns by a computed name gets its saved results marked at the top level
// only.
func (e *execution) captureOwnProp(ns string) {
	if !e.marking || e.origins.ownProp != nil || e.prog == nil || !strings.Contains(e.prog.js, ns) {
		return
	}
	obj, ok := e.vm.Get("Object").(*goja.Object)
	if !ok {
		return
	}
	if f, ok := goja.AssertFunction(obj.Get("getOwnPropertyDescriptor")); ok {
		e.origins.ownProp = f
		e.origins.walkLeft = maxMarkVisitsTotal
	}
}

// walkOff turns the walk below the top level off, for the benchmark
// that compares its cost (BenchmarkSavedResultWalk).
var walkOff bool

// markTree marks v, a sub-program's result, and the plain objects and
// arrays inside it (see above); without a captured
// getOwnPropertyDescriptor, v alone.
func (o *origins) markTree(v *goja.Object) {
	if o.ownProp == nil || walkOff || o.walkLeft <= 0 {
		o.markMade(v) // the top level costs no read
		return
	}
	left := min(maxMarkVisits, o.walkLeft)
	start := left
	defer func() {
		// Nothing above is known to panic; if something did, the walk
		// stops where it was and the result is returned as it is.
		_ = recover()
		o.walkLeft -= start - left
	}()
	o.markNode(v, 0, &left)
}

// markNode marks obj, at depth, if it is a plain object or array that
// can take its recording prototype, and then walks its own data members.
func (o *origins) markNode(obj *goja.Object, depth int, left *int) {
	if *left <= 0 || depth > maxMarkDepth {
		return
	}
	*left--
	if obj.ExportType() == proxyType {
		return
	}
	isArray := false
	switch obj.ClassName() {
	case "Object":
	case "Array":
		isArray = true
	default:
		return
	}
	switch p := obj.Prototype(); {
	case p == nil:
		if isArray {
			return
		}
		// Walked, not marked; only the bounds end a cycle through such
		// objects.
	case p == o.objProto || p == o.arrProto:
		return // marked already: visited, or a host result's
	case !isArray && p == o.plainObject:
		if obj.SetPrototype(o.objProto) != nil {
			return // not extensible (frozen, sealed): left as it is
		}
	case isArray && p == o.arrayPrototype():
		if obj.SetPrototype(o.arrayProto(obj)) != nil {
			return
		}
	default:
		return // a class instance or a subclass of Array
	}
	if isArray {
		o.markElements(obj, depth, left)
		return
	}
	for i, k := range obj.Keys() {
		if *left <= 0 || i >= maxMarkMembers {
			return
		}
		*left--
		if c, ok := o.ownData(obj, k).(*goja.Object); ok {
			o.markNode(c, depth+1, left)
		}
	}
}

// markElements walks the first elements of the array a: its length is
// an own data property of every array; a hole or an accessor element is
// skipped.
func (o *origins) markElements(a *goja.Object, depth int, left *int) {
	n := min(a.Get("length").ToInteger(), maxMarkElements)
	for i := int64(0); i < n; i++ {
		if *left <= 0 {
			return
		}
		*left--
		if c, ok := o.ownDataAt(a, o.vm.ToValue(i)).(*goja.Object); ok {
			o.markNode(c, depth+1, left)
		}
	}
}

// arrayPrototype returns Array.prototype, the prototype of a new array.
func (o *origins) arrayPrototype() *goja.Object {
	if o.plainArray == nil {
		o.plainArray = o.vm.NewArray().Prototype()
	}
	return o.plainArray
}

// ownData returns the own data property k of obj, or nil when obj has
// none by that name (an accessor, an absent member). It runs no code of
// the script: see the top of this file. Without a captured
// getOwnPropertyDescriptor it reads obj.Get(k).
func (o *origins) ownData(obj *goja.Object, k string) goja.Value {
	if o.ownProp == nil {
		return obj.Get(k)
	}
	return o.ownDataAt(obj, o.vm.ToValue(k))
}

// element is ownData for element i of the array a.
func (o *origins) element(a *goja.Object, i int) goja.Value {
	if o.ownProp == nil {
		return a.Get(itoa(i))
	}
	return o.ownDataAt(a, o.vm.ToValue(i))
}

// ownDataAt is ownData for a key already a value.
func (o *origins) ownDataAt(obj *goja.Object, k goja.Value) goja.Value {
	d, err := o.ownProp(goja.Undefined(), obj, k)
	if err != nil {
		return nil
	}
	desc, ok := d.(*goja.Object)
	if !ok {
		return nil // undefined: no such own member
	}
	// The descriptor is a fresh ordinary object: without a prototype, a
	// member it lacks ("value" of an accessor's) is not looked for in
	// Object.prototype, where the script may have put a getter.
	if desc.SetPrototype(nil) != nil {
		return nil
	}
	return desc.Get("value")
}
