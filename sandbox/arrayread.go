package sandbox

import (
	"fmt"

	"github.com/dop251/goja"
)

// A host function that returns a list (Session[]) is often read as if it
// returned one item: latest.id, where latest is the array. That reads
// undefined, which becomes a missing argument of the next call and a
// "required field" error that points at the wrong place. So an array of
// objects a host call returned gets a prototype between it and
// Array.prototype: a proxy whose get trap answers what Array.prototype
// has and otherwise records the read and returns undefined, as before.
// It adds no property (JSON, Object.keys, spread, for…in and "in" see
// what they saw), costs one proxy per execution, and only reads that miss
// both the array and Array.prototype reach Go. The warning about an
// undefined argument and a runtime error on undefined then say that the
// value came from an array and to pick an element.

// maxArrayReads bounds the reads kept.
const maxArrayReads = 4

// arrayRead is one read of a member a host result's array lacks.
type arrayRead struct {
	field, from string // the member read; the function that returned the array
	site        string // the script's stack at the read
}

// markArrayResult gives v, the result of host function fn, the recording
// prototype when it is an array of objects.
func (e *execution) markArrayResult(v goja.Value, fn string) {
	o, ok := v.(*goja.Object)
	if !ok || o.ClassName() != "Array" || o.Get("length").ToInteger() == 0 {
		return
	}
	if first, ok := o.Get("0").(*goja.Object); !ok || first.ClassName() != "Object" {
		return
	}
	if e.arrayProto == nil {
		e.arrayFrom = map[*goja.Object]string{}
		e.arrayProto = e.vm.ToValue(e.vm.NewProxy(o.Prototype(), &goja.ProxyTrapConfig{Get: e.arrayMember})).(*goja.Object)
	}
	if o.SetPrototype(e.arrayProto) == nil {
		e.arrayFrom[o] = fn // at most one entry per host call
	}
}

// arrayMember is the get trap of arrayProto.
func (e *execution) arrayMember(t *goja.Object, prop string, receiver goja.Value) goja.Value {
	if prop == "__proto__" { // an accessor: answer for the receiver, not the target
		if r, ok := receiver.(*goja.Object); ok {
			return r.Prototype()
		}
	}
	if v := t.Get(prop); v != nil {
		return v
	}
	if r, ok := receiver.(*goja.Object); ok {
		if from, ok := e.arrayFrom[r]; ok {
			if len(e.arrayReads) == maxArrayReads {
				e.arrayReads = e.arrayReads[1:]
			}
			e.arrayReads = append(e.arrayReads, arrayRead{field: prop, from: from, site: e.callSite()})
		}
	}
	return goja.Undefined()
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
