package codemode

import (
	"fmt"
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
	disc := sp.v.disc
	where := strings.Join(sp.v.namespaces, " and ")
	hits := disc.ix.Search(fn, maxSuggested, func(id string) bool { _, ok := sp.tiers[id]; return ok })
	if len(hits) == 0 {
		return fmt.Sprintf("No function of %s matches %q; codemode.search(\"what you need\") finds functions by words, and %s has %d in all.", where, fn, where, len(sp.names))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The %d of %s's %d functions closest to %q, as codemode.search(%q) ranks them:", len(hits), where, len(sp.names), fn, fn)
	for _, h := range hits {
		fmt.Fprintf(&b, " %s (%s);", h.ID, disc.summary[h.ID])
	}
	b.WriteString(" codemode.describe([names]) shows their arguments.")
	return b.String()
}

// Withheld implements sandbox.Withholder: a write function that the
// read-only tool does not bind exists under the full tool, and the
// script's TypeError says so, with its tier, instead of "is not a
// function" and guesses.
func (h *execHost) Withheld(name string) string {
	if h.spec == nil {
		return ""
	}
	return withheld(h.spec, name)
}

// withheld explains name (namespace.function), which sp does not bind,
// if the server's full tool binds it: the read-only tool leaves out
// every function that may write. "" otherwise.
func withheld(sp *toolSpec, name string) string {
	if _, bound := sp.tiers[name]; bound {
		return ""
	}
	all := &sp.v.all
	tier, ok := all.tiers[name]
	if !ok || sp.name == all.name {
		return ""
	}
	return fmt.Sprintf("%s is not available in %s because it writes (tier %s); call it from %s.", name, sp.name, tier, all.name)
}

// qualifiedIn returns fn qualified by each of namespaces.
func qualifiedIn(namespaces []string, fn string) []string {
	out := make([]string, len(namespaces))
	for i, ns := range namespaces {
		out[i] = ns + "." + fn
	}
	return out
}

// Shape implements sandbox.Explainer: the argument object of name
// (namespace.function), on one line.
func (h *execHost) Shape(name string) string {
	if _, bound := h.tiers[name]; !bound || h.spec == nil {
		return ""
	}
	in, _ := h.spec.v.disc.info[name].Nodes()
	return argShape(in)
}

// argShape writes the members of an argument object as a TypeScript
// object type, optional members marked with "?": { trackName: string; limit?: number }.
func argShape(n *jsontype.Node) string {
	for n != nil && n.Shape == jsontype.Ptr {
		n = n.Elem
	}
	if n == nil || n.Shape != jsontype.Struct {
		return ""
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
		parts[i] = f.Name + opt + ": " + typeWord(f.Node, 0)
	}
	return "{ " + strings.Join(parts, "; ") + " }"
}

// typeWord names n as TypeScript, briefly: nested objects are "{…}".
func typeWord(n *jsontype.Node, depth int) string {
	if n == nil {
		return "unknown"
	}
	switch n.Shape {
	case jsontype.Bool:
		return "boolean"
	case jsontype.Int, jsontype.Uint, jsontype.Float:
		return "number"
	case jsontype.String, jsontype.Time, jsontype.Bytes, jsontype.Text:
		return "string"
	case jsontype.Ptr:
		return typeWord(n.Elem, depth)
	case jsontype.Slice, jsontype.Array:
		if depth > 1 || n.Elem == nil {
			return "unknown[]"
		}
		return typeWord(n.Elem, depth+1) + "[]"
	case jsontype.Map:
		return "Record<string, " + typeWord(n.Elem, depth+1) + ">"
	case jsontype.Struct:
		return "{…}"
	}
	return "unknown"
}

// unknownDescribed is describe's answer to a name the tool does not bind:
// where it is, for a write the read-only tool leaves out; else the
// spelling it most likely meant, else the closest functions by search.
func (s *Server) unknownDescribed(sp *toolSpec, n string) string {
	for _, q := range append([]string{n}, qualifiedIn(sp.v.namespaces, n)...) {
		if w := withheld(sp, q); w != "" {
			return "codemode.describe: " + w
		}
	}
	msg := fmt.Sprintf("codemode.describe: %s has no function %q", strings.Join(sp.v.namespaces, ", "), sp.v.display(n))
	shown := make([]string, len(sp.names))
	for i, q := range sp.names {
		shown[i] = sp.v.display(q)
	}
	if c := suggest.Closest(sp.v.display(n), shown); c != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", c)
	}
	_, fn, found := strings.Cut(n, ".")
	if !found {
		fn = n
	}
	msg += ". " + s.closestFunctions(sp, fn)
	if !sp.v.single() && !strings.Contains(n, ".") {
		msg += " Name a function as namespace.function."
	}
	return msg
}

var (
	_ sandbox.Explainer  = (*execHost)(nil)
	_ sandbox.Withholder = (*execHost)(nil)
)
