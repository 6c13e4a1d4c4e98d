package sandbox

import (
	"fmt"

	"github.com/dop251/goja"
)

// A host function that returns a list (Session[]) is often read as if it
// returned one item: latest.id, where latest is the array. That reads
// undefined, which becomes a missing argument of the next call and a
// "required field" error that points at the wrong place. So an array a
// host call returned gets, for each member of its first element, a getter
// that is not enumerable (JSON, Object.keys, spread and for…in do not see
// it), still reads undefined, and records the read; the warning about an
// undefined argument and a runtime error on undefined then say that the
// value came from an array and to pick an element.

// Bounds: the members given a getter per array, and the reads kept.
const (
	maxArrayFields = 40
	maxArrayReads  = 4
)

// arrayRead is one read of a member of a host result's array.
type arrayRead struct {
	field, from string // the member read; the function that returned the array
	site        string // the script's stack at the read
}

// markArrayResult gives v, the result of host function fn, its getters
// when it is an array of objects.
func (e *execution) markArrayResult(v goja.Value, fn string) {
	o, ok := v.(*goja.Object)
	if !ok || o.ClassName() != "Array" || o.Get("length").ToInteger() == 0 {
		return
	}
	first, ok := o.Get("0").(*goja.Object)
	if !ok || first.ClassName() != "Object" {
		return
	}
	if e.arrayFrom == nil {
		e.arrayFrom = map[*goja.Object]string{}
		e.arrayAccessors = map[string][2]goja.Value{}
	}
	e.arrayFrom[o] = fn // at most one entry per host call
	for i, k := range first.Keys() {
		if i == maxArrayFields {
			break
		}
		if o.Get(k) != nil { // length, an Array method: never shadow them
			continue
		}
		acc, ok := e.arrayAccessors[k]
		if !ok {
			acc = e.arrayAccessor(k)
			e.arrayAccessors[k] = acc
		}
		_ = o.DefineAccessorProperty(k, acc[0], acc[1], goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
}

// arrayAccessor returns the getter and setter for member k: the getter
// records the read and returns undefined; the setter turns the member
// into an ordinary property, as assigning to a plain array would.
func (e *execution) arrayAccessor(k string) [2]goja.Value {
	vm := e.vm
	get := vm.ToValue(func(call goja.FunctionCall) goja.Value {
		if o, ok := call.This.(*goja.Object); ok {
			if from, ok := e.arrayFrom[o]; ok {
				if len(e.arrayReads) == maxArrayReads {
					e.arrayReads = e.arrayReads[1:]
				}
				e.arrayReads = append(e.arrayReads, arrayRead{field: k, from: from, site: e.callSite()})
			}
		}
		return goja.Undefined()
	})
	set := vm.ToValue(func(call goja.FunctionCall) goja.Value {
		if o, ok := call.This.(*goja.Object); ok {
			_ = o.DefineDataProperty(k, call.Argument(0), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
		}
		return goja.Undefined()
	})
	return [2]goja.Value{get, set}
}

// arrayReadHint explains the latest read of a member of a host result's
// array, or "" when there was none.
func (e *execution) arrayReadHint() string {
	if len(e.arrayReads) == 0 {
		return ""
	}
	r := e.arrayReads[len(e.arrayReads)-1]
	where := ""
	if line, _ := e.sitePosition(r.site); line > 0 {
		where = fmt.Sprintf(" at line %d", line)
	}
	return fmt.Sprintf("The script read .%s%s from an array (the result of %s is a list), and an array has no member %s: pick an element first, e.g. list[0].%s for the first one, or loop over the list.",
		r.field, where, r.from, r.field, r.field)
}
