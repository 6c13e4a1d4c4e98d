package catalog

import "strings"

// closest returns the name nearest to s by edit distance (ignoring case),
// or "" if none is close enough to be a plausible typo.
func closest(s string, names []string) string {
	best, bestD := "", len(s)/3+2
	for _, n := range names {
		if d := distance(strings.ToLower(s), strings.ToLower(n)); d < bestD || (d == bestD && best != "" && n < best) {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b (in bytes).
func distance(a, b string) int {
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
