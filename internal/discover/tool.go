package discover

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/brakinglab/codemode-go/internal/suggest"
)

// MaxSuggested is how many functions an unknown name is answered with.
const MaxSuggested = 5

// Tool is one code tool as the discovery functions see it: which
// functions it binds, how their names are shown and how their
// declarations are rendered, all of which are its caller's to decide.
// Functions are named by their qualified names (namespace.function).
type Tool interface {
	// Namespaces lists the namespaces served, in order.
	Namespaces() []string
	// Bound lists the functions the tool binds.
	Bound() []string
	// Tier returns the tier of function id and whether the tool binds it.
	Tier(id string) (string, bool)
	// Display is how the name id is shown to the model.
	Display(id string) string
	// Withheld explains why id, which the tool does not bind, is not
	// available in it (a write the read-only tool leaves out), or "".
	Withheld(id string) string
	// Declare returns the declarations of the functions ids, which the
	// tool binds, sorted.
	Declare(ids []string) (string, error)
}

// Call answers codemode.search and codemode.describe for tool t: fn is
// the function called and args the JSON array of the script's arguments.
func (x *Index) Call(t Tool, fn string, args json.RawMessage) (json.RawMessage, error) {
	list, err := Args(fn, args)
	if err != nil {
		return nil, err
	}
	switch fn {
	case "search":
		query, limit, err := SearchArgs(list)
		if err != nil {
			return nil, err
		}
		return x.Search(query, limit, t.Tier, t.Display)
	case "describe":
		names, err := DescribeArgs(list)
		if err != nil {
			return nil, err
		}
		text, err := x.Describe(t, names)
		if err != nil {
			return nil, err
		}
		return json.Marshal(text)
	}
	return nil, NotAFunction(fn)
}

// Describe returns the declarations of names as t exposes them. A name is
// namespace.function, or just the function where that is unambiguous; a
// name t does not bind is an error saying where it is (a write the
// read-only tool leaves out), else the spelling meant, else the closest
// functions by search.
func (x *Index) Describe(t Tool, names []string) (string, error) {
	var ids []string
	seen := map[string]bool{}
	for _, n := range names {
		id, ok := resolve(t, n)
		if !ok {
			return "", errors.New(x.unknown(t, n))
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return t.Declare(ids)
}

// resolve finds the qualified name t binds for n: n itself, or the one
// function of that name when n is unqualified.
func resolve(t Tool, n string) (string, bool) {
	if _, ok := t.Tier(n); ok {
		return n, true
	}
	found := ""
	for _, ns := range t.Namespaces() {
		if _, ok := t.Tier(ns + "." + n); ok {
			if found != "" {
				return "", false // in two namespaces: say which
			}
			found = ns + "." + n
		}
	}
	return found, found != ""
}

// Suggest answers fn, a function name that does not exist, with the
// MaxSuggested functions of t codemode.search ranks first for it, with
// their summaries and the count they were picked from.
func (x *Index) Suggest(t Tool, fn string) string {
	bound := func(id string) bool { _, ok := t.Tier(id); return ok }
	return x.Closest(fn, MaxSuggested, strings.Join(t.Namespaces(), " and "), len(t.Bound()), bound)
}

// unknown is describe's answer to a name t does not bind.
func (x *Index) unknown(t Tool, n string) string {
	nss := t.Namespaces()
	for _, q := range append([]string{n}, qualifiedIn(nss, n)...) {
		if w := t.Withheld(q); w != "" {
			return "codemode.describe: " + w
		}
	}
	msg := fmt.Sprintf("codemode.describe: %s has no function %q", strings.Join(nss, ", "), t.Display(n))
	bound := t.Bound()
	shown := make([]string, len(bound))
	for i, q := range bound {
		shown[i] = t.Display(q)
	}
	if c := suggest.Closest(t.Display(n), shown); c != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", c)
	}
	_, fn, found := strings.Cut(n, ".")
	if !found {
		fn = n
	}
	msg += ". " + x.Suggest(t, fn)
	if len(nss) > 1 && !strings.Contains(n, ".") {
		msg += " Name a function as namespace.function."
	}
	return msg
}

// qualifiedIn returns fn qualified by each of namespaces.
func qualifiedIn(namespaces []string, fn string) []string {
	out := make([]string, len(namespaces))
	for i, ns := range namespaces {
		out[i] = ns + "." + fn
	}
	return out
}
