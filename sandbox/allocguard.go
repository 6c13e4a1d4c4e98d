package sandbox

// The allocation guard: typed arrays and ArrayBuffers are the one kind of
// JavaScript value whose whole size goja allocates in a single Go call
// (make([]byte, n)) before any script instruction runs again. The heap
// watchdog samples every millisecond, and memory fresh from the kernel
// needs no zeroing, so `new Float64Array(1e8).length` (800 MB) could
// allocate, answer and become garbage between two samples; only the
// worker's kernel cap stood in the way, and in process nothing did. The
// guard checks the size before goja allocates, in both modes: a single
// buffer larger than Limits.MemoryBytes ends the execution with
// MEMORY_LIMIT, every time, whatever the watchdog's timing.
//
// Each constructor global (ArrayBuffer and the eleven typed arrays) is
// replaced by a Proxy of the original whose construct trap sizes the
// request; the prototype's constructor points at the proxy, so species
// constructors (map, slice, filter, subarray's buffer) and subclasses
// (class X extends Uint8Array, whose super call reaches the trap) go
// through it too. instanceof, statics (from, of, BYTES_PER_ELEMENT) and
// the prototype chain are the originals', read through the proxy.
//
// What the trap sizes:
//   - a length (number, string, …): length × element size;
//   - an ArrayBuffer: nothing, the view shares it;
//   - a typed array: its length × the new element size (a Uint8Array
//     copied into a Float64Array is eight times larger);
//   - any other object: its elements are read once (an iterable through
//     Array.from, an array-like by its length read once), the size checked,
//     and the new array filled with TypedArray.prototype.set, so a length
//     getter that answers differently the second time cannot slip past.

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// mayAllocateBuffers reports whether a compiled program can reach a
// buffer constructor at all. Installing the guard instantiates the twelve
// constructors goja otherwise makes on first use, about 65 µs per
// execution, so programs that cannot reach them skip it. Every
// constructor's name contains "Array"; without the name, only a property
// read on the global object can reach one, and a strict-mode script
// (eval and the Function constructor are disabled) reaches the global
// object only as globalThis or as this outside any function. esbuild
// prints identifiers with their escapes decoded, but a program on the
// fast path (fastpath.go) runs as written, where Float64\u0041rray names a
// constructor too: any Unicode escape counts as a possible name
// (TestAllocationGuardRoutes tries escapes).
func mayAllocateBuffers(js string) bool {
	return strings.Contains(js, "Array") || strings.Contains(js, "globalThis") || strings.Contains(js, "this") ||
		strings.Contains(js, `\u`)
}

// allocCtors are the constructors the guard wraps, with their element size.
var allocCtors = []struct {
	name string
	size int64
}{
	{"ArrayBuffer", 1},
	{"Int8Array", 1}, {"Uint8Array", 1}, {"Uint8ClampedArray", 1},
	{"Int16Array", 2}, {"Uint16Array", 2},
	{"Int32Array", 4}, {"Uint32Array", 4}, {"Float32Array", 4},
	{"Float64Array", 8}, {"BigInt64Array", 8}, {"BigUint64Array", 8},
}

var arrayBufferType = reflect.TypeFor[goja.ArrayBuffer]()

// guardAllocations installs the guard on e's runtime before the program
// runs. The limit is read at each construction.
func (e *execution) guardAllocations() error {
	vm := e.vm
	g := vm.GlobalObject()
	arrayFrom, ok := goja.AssertFunction(g.Get("Array").ToObject(vm).Get("from"))
	if !ok {
		return errorString("Array.from is not a function")
	}
	hasInstance, ok := goja.AssertFunction(g.Get("Function").ToObject(vm).Get("prototype").ToObject(vm).GetSymbol(goja.SymHasInstance))
	if !ok {
		return errorString("Function.prototype[Symbol.hasInstance] is not a function")
	}
	var set goja.Callable
	for _, c := range allocCtors {
		orig := g.Get(c.name).ToObject(vm)
		construct, ok := goja.AssertConstructor(orig)
		if !ok {
			return errorString(c.name + " is not a constructor")
		}
		if set == nil && c.name != "ArrayBuffer" {
			// %TypedArray%.prototype.set, shared by every typed array.
			proto := orig.Get("prototype").ToObject(vm).Prototype()
			if set, ok = goja.AssertFunction(proto.Get("set")); !ok {
				return errorString("TypedArray.prototype.set is not a function")
			}
		}
		name, size, buffer := c.name, c.size, c.name == "ArrayBuffer"
		trap := func(_ *goja.Object, args []goja.Value, newTarget *goja.Object) *goja.Object {
			if buffer {
				return e.newBuffer(construct, name, args, newTarget)
			}
			return e.newTypedArray(construct, arrayFrom, set, name, size, args, newTarget)
		}
		p := vm.NewProxy(orig, &goja.ProxyTrapConfig{Construct: trap})
		pv := vm.ToValue(p)
		// goja's instanceof cannot see through a proxy (it panics
		// "Expecting a function"): give the original an own
		// Symbol.hasInstance, read through the proxy, that checks against
		// the original (or, for a subclass, against the subclass).
		own := vm.ToValue(func(call goja.FunctionCall) goja.Value {
			this := call.This
			if this == pv {
				this = orig
			}
			r, err := hasInstance(this, call.Argument(0))
			if err != nil {
				panic(err)
			}
			return r
		})
		if err := orig.DefineDataPropertySymbol(goja.SymHasInstance, own, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
			return err
		}
		if err := orig.Get("prototype").ToObject(vm).DefineDataProperty("constructor", pv, goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
			return err
		}
		if err := g.DefineDataProperty(c.name, pv, goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
			return err
		}
	}
	return nil
}

type errorString string

func (s errorString) Error() string { return string(s) }

// newBuffer constructs an ArrayBuffer after sizing it. The length is
// converted once and passed on as a number, so an object's valueOf cannot
// answer a small size here and a large one to the constructor.
func (e *execution) newBuffer(construct goja.Constructor, name string, args []goja.Value, newTarget *goja.Object) *goja.Object {
	if len(args) > 0 && args[0] != nil {
		n := args[0].ToNumber()
		e.checkAlloc(name, n.ToFloat(), 1)
		args = append([]goja.Value{n}, args[1:]...)
	}
	return e.construct(construct, newTarget, args...)
}

// newTypedArray constructs a typed array after sizing it (see the file
// comment for what is sized how).
func (e *execution) newTypedArray(construct goja.Constructor, arrayFrom, set goja.Callable, name string, size int64, args []goja.Value, newTarget *goja.Object) *goja.Object {
	if len(args) == 0 || args[0] == nil {
		return e.construct(construct, newTarget, args...)
	}
	src, ok := args[0].(*goja.Object)
	if !ok {
		// A length; primitives convert without side effects.
		e.checkAlloc(name, args[0].ToFloat(), size)
		return e.construct(construct, newTarget, args...)
	}
	t := src.ExportType()
	switch {
	case t == arrayBufferType:
		return e.construct(construct, newTarget, args...)
	case t != nil && t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Interface:
		// A typed array: its export is a view of its elements, not a copy.
		e.checkAlloc(name, float64(reflect.ValueOf(src.Export()).Len()), size)
		return e.construct(construct, newTarget, args...)
	}
	var items goja.Value = src
	if it := src.GetSymbol(goja.SymIterator); it != nil && !goja.IsUndefined(it) && !goja.IsNull(it) {
		from, err := arrayFrom(goja.Undefined(), src)
		if err != nil {
			panic(err)
		}
		items = from
	}
	n := items.ToObject(e.vm).Get("length")
	length := 0.0
	if n != nil {
		length = n.ToFloat()
	}
	if length != length || length < 0 { // NaN or negative: ToLength gives 0
		length = 0
	}
	e.checkAlloc(name, length, size)
	ta := e.construct(construct, newTarget, e.vm.ToValue(int64(length)))
	if _, err := set(ta, items); err != nil {
		panic(err)
	}
	return ta
}

// construct calls the original constructor, rethrowing its exception.
func (e *execution) construct(construct goja.Constructor, newTarget *goja.Object, args ...goja.Value) *goja.Object {
	o, err := construct(newTarget, args...)
	if err != nil {
		panic(err)
	}
	return o
}

// checkAlloc ends the execution with MEMORY_LIMIT when count elements of
// size bytes exceed the memory limit. The script cannot catch it: the
// thrown RangeError only unwinds the constructor, and the interrupt the
// stop set ends the script at its next instruction.
func (e *execution) checkAlloc(name string, count float64, size int64) {
	limit := e.lim.MemoryBytes
	if limit <= 0 || count*float64(size) <= float64(limit) {
		return
	}
	msg := allocLimitMessage(name, count*float64(size), limit)
	e.stop(KindMemoryLimit, msg)
	thrown, err := e.vm.New(e.rangeErrCtor, e.vm.ToValue(msg))
	if err != nil {
		panic(err)
	}
	panic(thrown)
}

// allocLimitMessage is the MEMORY_LIMIT message for a refused allocation.
func allocLimitMessage(name string, bytes float64, limit int64) string {
	return "the script asked for a " + name + " of " + formatMiB(bytes) + ", more than the " + formatMiB(float64(limit)) +
		" memory limit, and was stopped. Keep less data in memory: process the data in smaller pieces."
}

func formatMiB(b float64) string {
	if b >= 1<<30 {
		return strconv.FormatFloat(b/(1<<30), 'f', 1, 64) + " GiB"
	}
	return strconv.FormatFloat(b/(1<<20), 'f', 0, 64) + " MiB"
}
