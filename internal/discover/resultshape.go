package discover

import (
	"strconv"
	"strings"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// maxResultShape bounds ResultShape: past it, object members nest one
// level less.
const maxResultShape = 240

// ResultShape writes n, the result of a function, as TypeScript on one
// line, for an error on a value the function returned: "{ content:
// string }", "{ name: string; tier: string }[]". Objects are expanded up
// to two levels deep, or fewer when the text would pass maxResultShape;
// deeper ones are "{…}". "" when n is nil.
func ResultShape(n *jsontype.Node) string {
	if n == nil {
		return ""
	}
	for depth := 2; depth > 0; depth-- {
		if s := resultWord(n, depth); len(s) <= maxResultShape || depth == 1 {
			return s
		}
	}
	return ""
}

// FreeResult is the declared result of a function of the discovery
// namespace (see declarations): search, describe, progress; "" for
// another name.
func FreeResult(fn string) string {
	switch fn {
	case "search":
		return "{ name: string; tier: string; summary: string }[]"
	case "describe":
		return "string"
	}
	return ""
}

// resultWord names n as TypeScript with objects expanded depth levels.
func resultWord(n *jsontype.Node, depth int) string {
	if n == nil {
		return "unknown"
	}
	switch n.Shape {
	case jsontype.Ptr:
		return resultWord(n.Elem, depth)
	case jsontype.Slice, jsontype.Array:
		if n.Elem == nil {
			return "unknown[]"
		}
		w := resultWord(n.Elem, depth)
		if strings.Contains(w, " | ") {
			w = "(" + w + ")"
		}
		return w + "[]"
	case jsontype.Map:
		return "Record<string, " + resultWord(n.Elem, depth-1) + ">"
	case jsontype.Any:
		if len(n.Variants) == 0 {
			return "unknown"
		}
		parts := make([]string, len(n.Variants))
		for i, v := range n.Variants {
			parts[i] = resultWord(v, depth)
		}
		return strings.Join(parts, " | ")
	case jsontype.Struct:
		if depth <= 0 {
			if n.Name != "" {
				return n.Name
			}
			return "{…}"
		}
		if len(n.Fields) == 0 {
			return "{}"
		}
		parts := make([]string, len(n.Fields))
		for i, f := range n.Fields {
			opt := "?"
			if f.Required {
				opt = ""
			}
			parts[i] = f.Name + opt + ": " + resultWord(f.Node, depth-1)
		}
		return "{ " + strings.Join(parts, "; ") + " }"
	}
	if len(n.Enum) > 0 && len(n.Enum) <= 4 {
		parts := make([]string, len(n.Enum))
		for i, v := range n.Enum {
			if s, ok := v.(string); ok {
				parts[i] = strconv.Quote(s)
			} else {
				return typeWord(n, 0)
			}
		}
		return strings.Join(parts, " | ")
	}
	return typeWord(n, 0)
}
