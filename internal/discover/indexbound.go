package discover

import (
	"fmt"
	"slices"
	"strings"
)

// MaxIndexChars bounds the index lines of an index-mode description
// (about 6,000 tokens; the 313 operations of the generated GitHub
// catalogue take 14,000 characters and stay whole). A server that lists thousands of functions would
// otherwise make the description itself the flood: 5,000 one-line
// entries took 206,000 characters. Over the bound, each catalogue gets a
// fair share (one with a short list keeps it whole, the others share the
// rest equally); the entries past a catalogue's share are left out, and a
// closing line per catalogue says how many and that search finds them.
const MaxIndexChars = 24000

// bound keeps the entries of groups that fit MaxIndexChars, and returns
// the closing lines about those left out.
func bound(groups []Group) ([]Group, []string) {
	total := map[string]int{}
	all := 0
	for _, g := range groups {
		for _, e := range g.Entries {
			n := entryLen(e)
			total[namespaceOf(e.Name)] += n
			all += n
		}
	}
	if all <= MaxIndexChars {
		return groups, nil
	}
	// Water-filling: the smallest lists first, each namespace at most an
	// equal share of what is left.
	nss := make([]string, 0, len(total))
	for ns := range total {
		nss = append(nss, ns)
	}
	slices.SortFunc(nss, func(a, b string) int {
		if total[a] != total[b] {
			return total[a] - total[b]
		}
		return strings.Compare(a, b)
	})
	allowed := map[string]int{}
	left := MaxIndexChars
	for i, ns := range nss {
		allowed[ns] = min(total[ns], left/(len(nss)-i))
		left -= allowed[ns]
	}
	used, full, more := map[string]int{}, map[string]bool{}, map[string]int{}
	kept := make([]Group, len(groups))
	for i, g := range groups {
		kept[i].Tier = g.Tier
		for _, e := range g.Entries {
			ns := namespaceOf(e.Name)
			if n := entryLen(e); !full[ns] && used[ns]+n <= allowed[ns] {
				used[ns] += n
				kept[i].Entries = append(kept[i].Entries, e)
				continue
			}
			full[ns] = true // keep a prefix of the list, in its order
			more[ns]++
		}
	}
	var lines []string
	for _, ns := range slices.Sorted(func(yield func(string) bool) {
		for ns := range more {
			if !yield(ns) {
				return
			}
		}
	}) {
		of := ""
		if ns != "" {
			of = " of " + ns
		}
		lines = append(lines, fmt.Sprintf("… and %d more functions%s, not listed here for length: %s.search(\"what you need\") finds them.", more[ns], of, Namespace))
	}
	return kept, lines
}

// entryLen is the length of e's line in the index.
func entryLen(e Entry) int {
	n := len("- ") + len(e.Name) + len("\n")
	if e.Summary != "" {
		n += len(": ") + len(e.Summary)
	}
	if e.Approval != "" {
		n += 1 + len(e.Approval)
	}
	return n
}

// namespaceOf is the catalogue a display name belongs to: the part before
// its first dot when names are qualified (several catalogues), else "".
func namespaceOf(name string) string {
	ns, _, ok := strings.Cut(name, ".")
	if !ok {
		return ""
	}
	return ns
}
