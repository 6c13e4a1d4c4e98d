package discover

import (
	"fmt"
	"strings"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// Declarations declares the discovery namespace for the model: search,
// describe and progress, then extra (further free functions, such as
// chart, as declaration lines). namespaces names the catalogues searched.
func Declarations(namespaces, extra string) string {
	return fmt.Sprintf(`declare namespace %[1]s {
  /** Ranks the functions of %[2]s for a query in plain words (matched against names, summaries, field names and docs), best first. limit: default %[3]d, at most %[4]d. */
  function search(query: string, options?: { limit?: number }): Promise<{ name: string; tier: string; summary: string }[]>;
  /** The exact TypeScript declarations (signature, argument and result types, field docs, constraints) of the named functions, as text to read or return. */
  function describe(names: string | string[]): Promise<string>;
  /** Reports progress of long work to the client (done of total units, a short message); free, and ignored when the client did not ask for progress. */
  function progress(done: number, total?: number, message?: string): Promise<null>;
%[5]s
}`, Namespace, namespaces, DefaultSearchLimit, MaxSearchLimit, extra)
}

// Entry is one line of the description's index.
type Entry struct {
	Name     string // as the model writes it
	Summary  string
	Approval string // a tag saying calls wait for the user's approval, or ""
}

// Group is the entries of one tier, in the order listed.
type Group struct {
	Tier    string // READ-ONLY, MUTATING, CREATIVE
	Entries []Entry
}

// List writes the index of an index-mode description: under each
// non-empty group's tier, one line per function with its summary and
// approval tag, within MaxIndexChars (see bound: the entries past it are
// counted on closing lines instead).
func List(groups []Group) string {
	groups, more := bound(groups)
	var b strings.Builder
	for _, g := range groups {
		if len(g.Entries) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(g.Tier + ":\n")
		for _, e := range g.Entries {
			b.WriteString("- " + e.Name)
			if e.Summary != "" {
				b.WriteString(": " + e.Summary)
			}
			if e.Approval != "" {
				b.WriteString(" " + e.Approval)
			}
			b.WriteString("\n")
		}
	}
	if len(more) > 0 {
		b.WriteString("\n" + strings.Join(more, "\n"))
	}
	return strings.TrimRight(b.String(), "\n")
}

// Closest answers a name fn that does not exist with the functions the
// search ranks first for it (at most limit, among those bound accepts),
// with their summaries, where (the catalogues' names) and total (how many
// functions they have) for the count they were picked from.
func (x *Index) Closest(fn string, limit int, where string, total int, bound func(id string) bool) string {
	ids := x.Rank(fn, limit, bound)
	if len(ids) == 0 {
		return fmt.Sprintf("No function of %s matches %q; %s.search(\"what you need\") finds functions by words, and %s has %d in all.", where, fn, Namespace, where, total)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The %d of %s's %d functions closest to %q, as %s.search(%q) ranks them:", len(ids), where, total, fn, Namespace, fn)
	for _, id := range ids {
		fmt.Fprintf(&b, " %s (%s);", id, x.summary[id])
	}
	b.WriteString(" " + Namespace + ".describe([names]) shows their arguments.")
	return b.String()
}

// Shape writes the members of an argument object as a TypeScript object
// type on one line, optional members marked with "?": { trackName:
// string; limit?: number }. It is "" when n is not an object.
func Shape(n *jsontype.Node) string {
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
	if n == nil || depth > 4 {
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
		return typeWord(n.Elem, depth) + "[]"
	case jsontype.Map:
		return "Record<string, " + typeWord(n.Elem, depth+1) + ">"
	case jsontype.Struct:
		return "{…}"
	}
	return "unknown"
}
