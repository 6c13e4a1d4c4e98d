package sandbox

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dop251/goja"

	suggestpkg "github.com/brakinglab/codemode-go/internal/suggest"
)

// The wording of errors and warnings on a value a host call returned (see
// origins.go): which call, its line, its declared result, and the fix.

// maxMembersNamed bounds the members of an object a hint lists.
const maxMembersNamed = 6

// Methods a model reaches for on a string or an array. A name in both
// lists (slice, includes, …) is looked for in both kinds of member.
var (
	stringMethods = setOf("split", "trim", "trimStart", "trimEnd", "toLowerCase", "toUpperCase", "startsWith", "endsWith",
		"includes", "slice", "substring", "replace", "replaceAll", "match", "matchAll", "indexOf", "lastIndexOf",
		"padStart", "padEnd", "charAt", "length", "at", "concat", "localeCompare", "repeat", "search", "normalize")
	arrayMethods = setOf("filter", "map", "forEach", "find", "findIndex", "findLast", "reduce", "some", "every",
		"slice", "includes", "indexOf", "join", "sort", "flatMap", "flat", "length", "at", "concat", "entries",
		"keys", "values", "reverse", "push", "toSorted")
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// notAnObject is goja's message for calling a method that a value with
// a proxy in its prototype chain lacks, as results have (origins.go).
const notAnObject = "TypeError: Value is not an object: undefined"

// explainOrigin returns msg, the message of a TypeError thrown at line of
// the script, with what originHint says about it. goja's message for a
// missing method of a result ("Value is not an object: undefined")
// becomes the one it gives for other objects, "Object has no member
// 'split'".
func (e *execution) explainOrigin(msg string, line int) string {
	return e.explainIn(e.scriptView(), msg, line)
}

// explainIn is explainOrigin for a TypeError thrown at line of the code
// v, whose message may lack its "TypeError: " (a sub-program's, see
// subWhere).
func (e *execution) explainIn(v codeView, msg string, line int) string {
	if msg == notAnObject || msg == notAnObject[len("TypeError: "):] {
		for i := len(e.origins.misses) - 1; i >= 0; i-- {
			if l, _, here := e.missPosition(e.origins.misses[i], v); here && l == line {
				msg = strings.TrimSuffix(msg, notAnObject[len("TypeError: "):]) + "Object has no member '" + e.origins.misses[i].field + "'"
				break
			}
		}
	}
	if h := e.originHint(v, msg, line); h != "" {
		return msg + ". " + h
	}
	return msg
}

// originHint explains a TypeError with message msg, thrown at line, on a
// value that came from a host call: the read that missed (its member is
// in msg for "has no member"; for "of undefined" it is the latest read on
// that line), named by its call and declared result. "" when no recorded
// read explains the error.
func (e *execution) originHint(v codeView, msg string, line int) string {
	misses := e.origins.misses
	if len(misses) == 0 {
		return ""
	}
	if _, rest, ok := strings.Cut(msg, "has no member '"); ok {
		field, _, _ := strings.Cut(rest, "'")
		for i := len(misses) - 1; i >= 0; i-- {
			if m := misses[i]; m.field == field {
				if l, _, here := e.missPosition(m, v); here && (l == line || line == 0 || l == 0) {
					return e.missHint(m, v)
				}
			}
		}
		return ""
	}
	if !strings.Contains(msg, "of undefined") {
		return ""
	}
	// "Cannot read property 'P' of undefined": the undefined is the
	// missed read just before P on that line (text.content.split).
	_, rest, _ := strings.Cut(msg, "property '")
	prop, _, _ := strings.Cut(rest, "'")
	for i := len(misses) - 1; i >= 0; i-- {
		m := misses[i]
		l, _, here := e.missPosition(m, v)
		if !here || l != line && line != 0 && l != 0 {
			continue
		}
		if prop != "" && l > 0 && !v.readsThrough(l, m.field, prop) {
			continue
		}
		return e.missHint(m, v)
	}
	return ""
}

// readsThrough reports whether the TypeScript line of v reads prop of
// field: field.prop, field?.prop or field[…] (an index or a computed
// member).
func (v codeView) readsThrough(line int, field, prop string) bool {
	l, ok := v.line(line)
	if !ok {
		return false
	}
	return strings.Contains(l, field+"."+prop) || strings.Contains(l, field+"?."+prop) || strings.Contains(l, field+"[")
}

// latestMissHint explains the latest read that missed since the last
// host call, for a warning about an undefined argument; "" when none
// missed on a host result.
func (e *execution) latestMissHint() string {
	for i := len(e.origins.misses) - 1; i >= 0; i-- {
		if _, _, here := e.missPosition(e.origins.misses[i], e.scriptView()); !here {
			continue
		}
		if h := e.missHint(e.origins.misses[i], e.scriptView()); h != "" {
			return h
		}
	}
	return ""
}

// missHint words one missed read: "text is the result of
// files.read_text_file (line 3), declared `{ content: string }`, an
// object with member content, which has no member split: use
// text.content, e.g. text.content.split(…)." "" when the value did not
// come from a kept host result.
func (e *execution) missHint(m missedRead, v codeView) (hint string) {
	// A script may have given a result a getter or a proxy of its own,
	// which the search and the hint read: whatever it throws, the hint is
	// only left out.
	defer func() {
		if recover() != nil {
			hint = ""
		}
	}()
	r, path, ok := e.origin(m.recv)
	if !ok {
		return ""
	}
	line, col, _ := e.missPosition(m, v)
	expr := v.exprBefore(line, col, m.field)
	subject := expr
	if subject == "" {
		subject = "the value"
	}
	var b strings.Builder
	b.WriteString(subject + " is ")
	if path != "" {
		b.WriteString("result" + path + ", part of ")
	}
	b.WriteString("the result of " + r.fn)
	if l := e.resultLine(r, v); l > 0 {
		fmt.Fprintf(&b, " (line %d)", l)
	}
	if shape := e.explain("result", r.fn); shape != "" {
		b.WriteString(", declared `" + shape + "`")
	}
	b.WriteString(": " + e.missFix(m, expr, line))
	return b.String()
}

// missFix says what the missed value is and how to read what was meant.
// expr is the script's expression for it ("" when not found).
func (e *execution) missFix(m missedRead, expr string, line int) string {
	f := m.field
	at := ""
	if line > 0 {
		at = fmt.Sprintf(" (read at line %d)", line)
	}
	name := expr
	if name == "" {
		name = "value"
	}
	switch v := m.recv.(type) {
	case *goja.Object:
		if v.ClassName() == "Array" {
			return fmt.Sprintf("an array, which has no member %s%s. Pick an element first, e.g. %s[0].%s for the first one, or loop over the list.", f, at, name, f)
		}
		keys := v.Keys()
		what := "an object with no members"
		if len(keys) > 0 {
			shown := keys
			if len(shown) > maxMembersNamed {
				shown = shown[:maxMembersNamed]
			}
			what = "an object with member"
			if len(keys) > 1 {
				what += "s"
			}
			what += " " + strings.Join(shown, ", ")
			if len(keys) > len(shown) {
				what += ", …"
			}
		}
		what += ", which has no member " + f + at
		for _, k := range keys {
			mv := e.origins.ownData(v, k)
			if mv == nil {
				continue // an accessor: not read
			}
			isStr, arr := false, false
			if o, ok := mv.(*goja.Object); ok {
				arr = o.ClassName() == "Array"
			} else {
				_, isStr = mv.Export().(string) // a primitive: exporting it runs nothing
			}
			if stringMethods[f] && isStr || arrayMethods[f] && arr {
				kind := "the string"
				if arr {
					kind = "the array"
				}
				return fmt.Sprintf("%s: use %s, %s in it, e.g. %s.%s.", what, memberPath(name, k), kind, memberPath(name, k), callSuffix(f))
			}
		}
		// A string or array method is not a misspelt member (map is not
		// laps).
		if c := suggestpkg.Closest(f, keys); c != "" && !stringMethods[f] && !arrayMethods[f] {
			return fmt.Sprintf("%s: did you mean %s?", what, memberPath(name, c))
		}
		if len(keys) == 1 {
			return fmt.Sprintf("%s: use %s.", what, memberPath(name, keys[0]))
		}
		if len(keys) > 0 {
			return what + ": read one of its members."
		}
		return what + "."
	}
	if s, ok := m.recv.Export().(string); ok {
		t := strings.TrimSpace(s)
		if arrayMethods[f] && (strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{")) {
			return fmt.Sprintf("a string of JSON text, which has no member %s%s: parse it first, JSON.parse(%s).%s.", f, at, name, callSuffix(f))
		}
		return fmt.Sprintf("a string, which has no member %s%s: use %s itself.", f, at, name)
	}
	return fmt.Sprintf("a number, which has no member %s%s: use %s itself.", f, at, name)
}

// callSuffix is how a hint shows a member being used: a method call for
// a method, the member alone for length.
func callSuffix(f string) string {
	if f == "length" {
		return f
	}
	return f + "(…)"
}

// exprBefore returns the script's expression whose member field was read
// near line and col of the TypeScript: for "text.content.split(',')" and
// field "split", "text.content". "" when the line does not show one.
func (v codeView) exprBefore(line, col int, field string) string {
	l, ok := v.line(line)
	if !ok {
		return ""
	}
	best := -1
	for i := 0; ; {
		j := strings.Index(l[i:], "."+field)
		if j < 0 {
			break
		}
		j += i
		end := j + 1 + len(field)
		if end == len(l) || !isIdentByte(l[end]) {
			if best < 0 || abs(j-(col-1)) < abs(best-(col-1)) {
				best = j
			}
		}
		i = j + 1
	}
	if best <= 0 {
		return ""
	}
	i := best
	if l[i-1] == '?' { // optional chaining
		i--
	}
	start := i
	for start > 0 {
		c := l[start-1]
		switch {
		case isIdentByte(c) || c == '.' || c == '?':
			start--
		case c == ']':
			depth := 0
			k := start - 1
			for ; k >= 0; k-- {
				if l[k] == ']' {
					depth++
				} else if l[k] == '[' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			if k < 0 {
				return ""
			}
			start = k
		default:
			goto done
		}
	}
done:
	expr := strings.TrimLeft(l[start:i], ".?")
	if expr == "" || !isIdentByte(expr[0]) || (expr[0] >= '0' && expr[0] <= '9') {
		return ""
	}
	return expr
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func itoa(i int) string { return strconv.Itoa(i) }
