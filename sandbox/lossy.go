package sandbox

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// What JSON cannot hold and JSON.stringify changes without a word: a Map
// or Set becomes {}, a function member disappears (null in an array),
// undefined in an array and NaN or ±Infinity become null. lossyJSON finds
// them in data about to cross to the host or the model, so a warning can
// name the path and the fix instead of the model wondering why a field is
// empty.

// Bounds of one search: the values visited and the warnings kept.
const (
	maxLossyVisits   = 5000
	maxLossyWarnings = 8
)

// lossyFinding is one kind of loss at one path; paths that differ only in
// array indexes count as one (a Map in every element of a list).
type lossyFinding struct {
	path, what string
	more       int
}

var indexPart = regexp.MustCompile(`\[\d+\]`)

// lossyJSON returns, for v about to become JSON (text), one sentence per
// thing JSON will lose, with its path from root ("result", "args"). A Map
// or Set is looked for only when text has an empty object: asking goja
// for the Map constructor initialises it, which costs every execution.
func (e *execution) lossyJSON(v goja.Value, text, root string, visits int) []string {
	collections := strings.Contains(text, "{}")
	var found []lossyFinding
	byShape := map[string]int{}
	add := func(path, what string) {
		key := indexPart.ReplaceAllString(path, "[]") + " " + what
		if i, ok := byShape[key]; ok {
			found[i].more++
			return
		}
		if len(found) < maxLossyWarnings {
			byShape[key] = len(found)
			found = append(found, lossyFinding{path: path, what: what})
		}
	}
	seen := map[*goja.Object]bool{}
	var walk func(v goja.Value, path string, inArray bool)
	walk = func(v goja.Value, path string, inArray bool) {
		if visits--; visits < 0 || v == nil {
			return
		}
		if goja.IsUndefined(v) {
			if inArray {
				add(path, "undefined")
			}
			return
		}
		o, ok := v.(*goja.Object)
		if !ok {
			if f, isFloat := v.Export().(float64); isFloat && (math.IsNaN(f) || math.IsInf(f, 0)) {
				add(path, v.String())
			}
			return
		}
		if seen[o] {
			return // a cycle is reported where JSON fails on it
		}
		seen[o] = true
		if _, isFn := goja.AssertFunction(o); isFn {
			add(path, "function")
			return
		}
		switch o.ClassName() {
		case "Array":
			n := int(o.Get("length").ToInteger())
			for i := 0; i < n && visits > 0; i++ {
				walk(o.Get(strconv.Itoa(i)), path+"["+strconv.Itoa(i)+"]", true)
			}
			return
		case "Object":
			if tj := o.Get("toJSON"); tj != nil && !goja.IsUndefined(tj) {
				return // serialises itself
			}
			keys := o.Keys()
			if len(keys) == 0 && collections {
				if kind := e.collectionKind(o); kind != "" {
					add(path, kind)
				}
				return
			}
			for _, k := range keys {
				if visits <= 0 {
					return
				}
				walk(o.Get(k), memberPath(path, k), false)
			}
		}
	}
	walk(v, root, false)
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = lossySentence(f)
	}
	return out
}

// memberPath appends member k to path, bracketed when it is not an
// identifier.
func memberPath(path, k string) string {
	if identPattern.MatchString(k) {
		return path + "." + k
	}
	return path + "[" + strconv.Quote(k) + "]"
}

var identPattern = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// lossySentence says what JSON did at f.path and how to keep the data.
func lossySentence(f lossyFinding) string {
	var s string
	switch f.what {
	case "Map":
		s = fmt.Sprintf("%s is a Map, and JSON has no Map: it became {}. Convert it: Object.fromEntries(map) for string keys, or [...map] for [key, value] pairs", f.path)
	case "Set":
		s = fmt.Sprintf("%s is a Set, and JSON has no Set: it became {}. Convert it to an array: [...set]", f.path)
	case "function":
		s = fmt.Sprintf("%s is a function, and JSON has no functions: it was left out (null in an array). Call it and keep its result, or drop it", f.path)
	case "undefined":
		s = fmt.Sprintf("%s is undefined, and JSON has no undefined: it became null. Check the expression it comes from (a misspelled field?), or filter it out", f.path)
	default: // NaN, Infinity, -Infinity
		s = fmt.Sprintf("%s is %s, and JSON has no %s: it became null. It usually comes from dividing by zero or from arithmetic on a missing field; check the inputs, or round or default it", f.path, f.what, f.what)
	}
	if f.more > 0 {
		s += fmt.Sprintf(" (and %d more like it)", f.more)
	}
	return s + "."
}

// warnLossyValue records a warning for each thing the return value lost
// on its way to JSON.
func (e *execution) warnLossyValue(v goja.Value, text string) {
	for _, m := range e.lossyJSON(v, text, "result", maxLossyVisits) {
		e.warnings = append(e.warnings, Warning{Kind: WarningValue, Message: m})
	}
}

// maxLossyArgVisits bounds the search in one call's arguments, which run
// on every call.
const maxLossyArgVisits = 200

// warnLossyArgs records a warning, at the call, for each thing the
// arguments of name lost on their way to JSON: a Set of ids sent as {}.
func (e *execution) warnLossyArgs(name, site string, a goja.Value, text string) {
	if !strings.Contains(text, "{}") && !strings.Contains(text, "null") {
		return // nothing was turned into {} or null; a dropped function goes unseen
	}
	found := e.lossyJSON(a, text, "args", maxLossyArgVisits)
	if len(found) == 0 {
		return
	}
	line, col := e.sitePosition(site)
	for _, m := range found {
		if len(e.warnings) >= maxHostWarnings {
			e.droppedWarnings++
			continue
		}
		e.warnings = append(e.warnings, Warning{Kind: WarningValue, Function: name, Line: line, Column: col, Message: "in the arguments to " + name + ", " + m})
	}
}

// collectionKind is "Map" or "Set" when o is one (goja's class name for
// both is "Object"), else "".
func (e *execution) collectionKind(o *goja.Object) string {
	proto := o.Prototype()
	if proto == nil {
		return ""
	}
	if e.collectionProtos[0] == nil {
		for i, kind := range [...]string{"Map", "Set"} {
			if c, ok := e.vm.Get(kind).(*goja.Object); ok {
				e.collectionProtos[i], _ = c.Get("prototype").(*goja.Object)
			}
		}
	}
	switch proto {
	case e.collectionProtos[0]:
		return "Map"
	case e.collectionProtos[1]:
		return "Set"
	}
	return ""
}
