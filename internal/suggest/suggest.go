// Package suggest finds the name a caller most likely meant, so an error
// about a misspelled function can say "Did you mean getSessions?" and a
// warning about an unknown field can name the declared one.
package suggest

import "strings"

// Closest returns the name in names nearest to s by edit distance, ignoring
// case, or "" when none is close enough to be a plausible typo: at most
// max(2, len(s)/3) edits. Ties go to the name that sorts first, so the
// answer does not depend on the order of names.
func Closest(s string, names []string) string {
	best, bestD := "", max(2, len(s)/3)+1
	ls := strings.ToLower(s)
	for _, n := range names {
		d := Distance(ls, strings.ToLower(n))
		if d < bestD || (d == bestD && best != "" && n < best) {
			best, bestD = n, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b, counted in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Nearest is Closest, and failing that the name that shortens or extends s
// (case-insensitively): "track" → "trackName", "car" → "carName",
// "sessionIdentifier" → "sessionId". Among those it picks the name nearest
// in length, ties going to the name that sorts first. Parts shorter than
// three letters never match, so "id" does not suggest every "…Id".
func Nearest(s string, names []string) string {
	if best := Closest(s, names); best != "" {
		return best
	}
	ls := strings.ToLower(s)
	best, bestD := "", -1
	for _, n := range names {
		ln := strings.ToLower(n)
		short, long := ls, ln
		if len(short) > len(long) {
			short, long = long, short
		}
		if len(short) < 3 || !strings.HasPrefix(long, short) && !strings.HasSuffix(long, short) {
			continue
		}
		d := len(long) - len(short)
		if bestD < 0 || d < bestD || (d == bestD && n < best) {
			best, bestD = n, d
		}
	}
	return best
}
