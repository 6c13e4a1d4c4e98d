package sandbox

import (
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// maxCycleVisits bounds the walk that looks for a cycle to name.
const maxCycleVisits = 100_000

// cyclePath finds a circular reference in v the way JSON.stringify walks
// it (array elements, own enumerable properties, skipping values with a
// toJSON method) and returns the path of the member that closes the cycle
// and the path of the object it points back to, written as a script would
// reach them from v ("fastest[0].session.laps", "fastest[0]"); root names
// v ("return value") where a path starts at it. ok is false if no cycle was found.
func (e *execution) cyclePath(v goja.Value, root string) (from, to string, ok bool) {
	defer func() {
		if recover() != nil { // a getter threw: no path to show
			from, to, ok = "", "", false
		}
	}()
	onPath := map[*goja.Object]string{}
	visits := 0
	var walk func(v goja.Value, path string) bool
	walk = func(v goja.Value, path string) bool {
		o, isObj := v.(*goja.Object)
		if !isObj {
			return false
		}
		if _, isFn := goja.AssertFunction(o); isFn {
			return false
		}
		if p, seen := onPath[o]; seen {
			from, to = path, p
			return true
		}
		if visits++; visits > maxCycleVisits {
			return false
		}
		if tj := o.Get("toJSON"); tj != nil {
			if _, isFn := goja.AssertFunction(tj); isFn {
				return false
			}
		}
		onPath[o] = path
		defer delete(onPath, o)
		if o.ClassName() == "Array" {
			n := o.Get("length").ToInteger()
			for i := int64(0); i < n; i++ {
				if walk(o.Get(strconv.FormatInt(i, 10)), path+"["+strconv.FormatInt(i, 10)+"]") {
					return true
				}
			}
			return false
		}
		for _, k := range o.Keys() {
			if walk(o.Get(k), member(path, k)) {
				return true
			}
		}
		return false
	}
	if !walk(v, "") {
		return "", "", false
	}
	name := func(p string) string {
		switch {
		case p == "":
			return root
		case strings.HasPrefix(p, "."):
			return p[1:]
		}
		return root + p
	}
	return name(from), name(to), true
}

// member appends property k to path as a script would write it.
func member(path, k string) string {
	if isIdentifier(k) {
		return path + "." + k
	}
	return path + "[" + strconv.Quote(k) + "]"
}

// cycleHint explains a circular reference in v, or returns "".
func (e *execution) cycleHint(v goja.Value, root string) string {
	from, to, ok := e.cyclePath(v, root)
	if !ok {
		return ""
	}
	if to == root {
		return from + " refers back to the " + root + " itself"
	}
	return from + " refers back to " + to + ", which contains it"
}
