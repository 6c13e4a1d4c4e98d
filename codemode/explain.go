package codemode

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/brakinglab/codemode-go/internal/jsontype"
	"github.com/brakinglab/codemode-go/internal/suggest"
	"github.com/brakinglab/codemode-go/sandbox"
)

// The sandbox words its errors about unknown functions and positional
// arguments with what only codemode knows (sandbox.Explainer): the
// functions codemode.search ranks closest to a name that does not exist,
// and the argument object a function takes.

// maxSuggested is the number of functions an unknown name is answered
// with.
const maxSuggested = 5

// Suggest implements sandbox.Explainer: the functions of this tool that
// codemode.search ranks first for an unknown name, qualified, each with
// its summary, and the count they were picked from.
func (h *execHost) Suggest(name string) string {
	if h.spec == nil {
		return ""
	}
	_, fn, _ := strings.Cut(name, ".")
	return h.s.closestFunctions(h.spec, fn)
}

// closestFunctions ranks sp's functions for fn, a name that does not exist,
// with the search codemode.search offers, and says how to find the rest.
func (s *Server) closestFunctions(sp *toolSpec, fn string) string {
	ns := s.cat.Namespace()
	hits := s.disc.ix.Search(fn, maxSuggested, func(id string) bool { _, ok := sp.tiers[id]; return ok })
	if len(hits) == 0 {
		return fmt.Sprintf("No function of %s matches %q; codemode.search(\"what you need\") finds functions by words, and %s has %d in all.", ns, fn, ns, len(sp.names))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The %d of %s's %d functions closest to %q, as codemode.search(%q) ranks them:", len(hits), ns, len(sp.names), fn, fn)
	for _, h := range hits {
		fmt.Fprintf(&b, " %s.%s (%s);", ns, h.ID, s.disc.summary[h.ID])
	}
	b.WriteString(" codemode.describe([names]) shows their arguments.")
	return b.String()
}

// Shape implements sandbox.Explainer: the argument object of name, on
// one line.
func (h *execHost) Shape(name string) string {
	fn, ok := strings.CutPrefix(name, h.ns+".")
	if _, bound := h.tiers[fn]; !ok || !bound {
		return ""
	}
	return argShape(h.s.disc.info[fn].In)
}

// argShape writes the members of argument type t as a TypeScript object
// type, optional members marked with "?": { trackName: string; limit?: number }.
func argShape(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return ""
	}
	fields := jsontype.Fields(t)
	if len(fields) == 0 {
		return "{}"
	}
	parts := make([]string, len(fields))
	for i, f := range fields {
		opt := "?"
		if f.Required {
			opt = ""
		}
		parts[i] = f.Name + opt + ": " + typeWord(f.Type, 0)
	}
	return "{ " + strings.Join(parts, "; ") + " }"
}

// typeWord names t as TypeScript, briefly: nested objects are "{…}".
func typeWord(t reflect.Type, depth int) string {
	switch jsontype.ShapeOf(t, true) {
	case jsontype.Bool:
		return "boolean"
	case jsontype.Int, jsontype.Uint, jsontype.Float:
		return "number"
	case jsontype.String, jsontype.Time, jsontype.Bytes, jsontype.Text:
		return "string"
	case jsontype.Ptr:
		return typeWord(t.Elem(), depth)
	case jsontype.Slice, jsontype.Array:
		if depth > 1 {
			return "unknown[]"
		}
		return typeWord(t.Elem(), depth+1) + "[]"
	case jsontype.Map:
		return "Record<string, " + typeWord(t.Elem(), depth+1) + ">"
	case jsontype.Struct:
		return "{…}"
	}
	return "unknown"
}

// unknownDescribed is describe's answer to a name the tool does not bind:
// the spelling it most likely meant, else the closest functions by search.
func (s *Server) unknownDescribed(sp *toolSpec, n string) string {
	msg := fmt.Sprintf("codemode.describe: %s has no function %q", s.cat.Namespace(), n)
	if c := suggest.Closest(n, sp.names); c != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", c)
	}
	return msg + ". " + s.closestFunctions(sp, n)
}

var _ sandbox.Explainer = (*execHost)(nil)
