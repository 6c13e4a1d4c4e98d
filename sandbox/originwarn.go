package sandbox

// The warnings about a host call's arguments that hold a host result in
// the wrong form: "[object Object]" made from an object, or a result
// passed whole where one of its members was meant (see originhint.go for
// the errors on a result's misread members).

import (
	"fmt"
	"strings"

	"github.com/dop251/goja"
)

// objectString is what String() makes of a plain object.
var objectString = []byte("[object Object]")

// warnObjectString warns, at the call, that the arguments a to name hold
// "[object Object]": String(value), `${value}` or value + "" of an object,
// which the host receives as that text. When a host result's toString
// was looked up, the warning names that result's call and declared shape.
func (e *execution) warnObjectString(name, site string, a goja.Value) {
	defer func() { _ = recover() }() // see missHint
	if len(e.warnings) >= maxHostWarnings {
		e.droppedWarnings++
		return
	}
	visits := maxLossyArgVisits
	path, ok := stringPathWith(a, string(objectString), "args", &visits)
	if !ok {
		return
	}
	msg := fmt.Sprintf("in the arguments to %s, %s holds \"[object Object]\": an object was turned into a string (String(x), `${x}` or x + \"\")", name, path)
	e.wantOriginsOfResults()
	for i := len(e.origins.coerced) - 1; i >= 0; i-- {
		o := e.origins.coerced[i]
		r, rpath, found := e.origin(o)
		if !found {
			continue
		}
		msg += "; the object is "
		if rpath != "" {
			msg += "result" + rpath + ", part of "
		}
		msg += "the result of " + r.fn
		if l := e.resultLine(r, e.scriptView()); l > 0 {
			msg += fmt.Sprintf(" (line %d)", l)
		}
		if shape := e.explain("result", r.fn); shape != "" {
			msg += ", declared `" + shape + "`"
		}
		if keys := o.Keys(); len(keys) > 0 {
			if len(keys) > maxMembersNamed {
				keys = keys[:maxMembersNamed]
			}
			msg += ". Pass the member you meant (" + strings.Join(dotted(keys), ", ") + ")"
		}
		break
	}
	line, col := e.sitePosition(site)
	e.warnings = append(e.warnings, Warning{Kind: WarningValue, Function: name, Line: line, Column: col,
		Message: msg + ", or JSON.stringify(x) to send its JSON."})
}

func dotted(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = memberPath("", k)
	}
	return out
}

// stringPathWith returns the path from root of the first string in v that
// contains sub.
func stringPathWith(v goja.Value, sub, path string, visits *int) (string, bool) {
	if *visits--; *visits < 0 || v == nil {
		return "", false
	}
	o, ok := v.(*goja.Object)
	if !ok {
		s, isStr := v.Export().(string)
		return path, isStr && strings.Contains(s, sub)
	}
	switch o.ClassName() {
	case "Array":
		n := int(o.Get("length").ToInteger())
		for i := 0; i < n && *visits > 0; i++ {
			if p, ok := stringPathWith(o.Get(itoa(i)), sub, path+"["+itoa(i)+"]", visits); ok {
				return p, true
			}
		}
	case "Object":
		for _, k := range o.Keys() {
			if p, ok := stringPathWith(o.Get(k), sub, memberPath(path, k), visits); ok {
				return p, true
			}
		}
	}
	return "", false
}

// maxResultArgVisits bounds the search of a failed call's arguments for
// host results.
const maxResultArgVisits = 200

// warnResultArgs warns, when a call failed because a member was an object
// or array where the host wanted something else ("Expected string, got
// object"), about each member of its arguments that is a kept host
// result or a member of one: { observations: [text] } for text.content.
func (e *execution) warnResultArgs(name string, pc pendingCall, err error) {
	if pc.args == nil {
		return
	}
	msg := callErrorText(err)
	if !strings.Contains(msg, "got object") && !strings.Contains(msg, "got array") {
		return
	}
	e.wantOrigins()
	if len(e.origins.kept) == 0 {
		return
	}
	defer func() { _ = recover() }() // see missHint
	visits := maxResultArgVisits
	var walk func(v goja.Value, path string) bool
	walk = func(v goja.Value, path string) bool {
		if visits--; visits < 0 {
			return false
		}
		o, ok := v.(*goja.Object)
		if !ok {
			return false
		}
		if path != "args" {
			if r, rpath, found := e.keptObject(o); found {
				e.warnResultArg(name, pc.site, path, o, r, rpath)
				return true
			}
		}
		switch o.ClassName() {
		case "Array":
			n := int(o.Get("length").ToInteger())
			for i := 0; i < n && visits > 0; i++ {
				if walk(o.Get(itoa(i)), path+"["+itoa(i)+"]") {
					return true
				}
			}
		case "Object":
			for _, k := range o.Keys() {
				if visits <= 0 {
					break
				}
				if walk(o.Get(k), memberPath(path, k)) {
					return true
				}
			}
		}
		return false
	}
	walk(pc.args, "args")
}

// keptObject reports whether o is a kept result or one of its members.
func (e *execution) keptObject(o *goja.Object) (hostResult, string, bool) {
	for i := len(e.origins.kept) - 1; i >= 0; i-- {
		r := e.origins.kept[i]
		top, ok := r.v.(*goja.Object)
		if !ok {
			continue
		}
		if top == o {
			return r, "", true
		}
		if top.ClassName() != "Object" {
			continue
		}
		for _, k := range top.Keys() {
			if m, ok := e.origins.ownData(top, k).(*goja.Object); ok && m == o {
				return r, memberPath("", k), true
			}
		}
	}
	return hostResult{}, "", false
}

// warnResultArg words one host result found at path in a failed call's
// arguments.
func (e *execution) warnResultArg(name, site, path string, o *goja.Object, r hostResult, rpath string) {
	if len(e.warnings) >= maxHostWarnings {
		e.droppedWarnings++
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "in the arguments to %s, %s is ", name, path)
	if rpath != "" {
		b.WriteString("result" + rpath + ", part of ")
	}
	b.WriteString("the result of " + r.fn)
	if l := e.resultLine(r, e.scriptView()); l > 0 {
		fmt.Fprintf(&b, " (line %d)", l)
	}
	if shape := e.explain("result", r.fn); shape != "" {
		b.WriteString(", declared `" + shape + "`")
	}
	if o.ClassName() == "Array" {
		b.WriteString(", an array, passed whole: pass an element or the values you meant.")
	} else if keys := o.Keys(); len(keys) > 0 {
		if len(keys) > maxMembersNamed {
			keys = keys[:maxMembersNamed]
		}
		b.WriteString(", an object, passed whole: pass the member you meant (" + strings.Join(dotted(keys), ", ") + ").")
	} else {
		b.WriteString(", an object, passed whole.")
	}
	line, col := e.sitePosition(site)
	e.warnings = append(e.warnings, Warning{Kind: WarningValue, Function: name, Line: line, Column: col, Message: b.String()})
}
