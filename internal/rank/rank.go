// Package rank ranks documents for a free-text query with BM25F: Okapi
// BM25 over a weighted sum of per-field term frequencies, so a word in a
// function's name counts more than the same word in a field's
// documentation. It is deterministic (ties are broken by document order),
// needs no network and no model, and answers in microseconds for a few
// thousand documents.
package rank

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// Field is one weighted part of a document.
type Field struct {
	Text   string
	Weight float64 // how much a term here counts; 0 means 1
}

// Doc is one document: an identifier and its fields.
type Doc struct {
	ID     string
	Fields []Field
}

// Hit is one ranked document.
type Hit struct {
	ID    string
	Score float64
}

// BM25 parameters: k1 saturates repeated terms, b normalises by length.
const (
	k1 = 1.2
	b  = 0.75
)

// Index is an immutable BM25F index. It is safe for concurrent use.
type Index struct {
	ids      []string
	length   []float64 // weighted length per document
	avgLen   float64
	postings map[string][]posting // term → the documents holding it, in order
}

// posting is one document's weighted frequency of a term.
type posting struct {
	doc int
	tf  float64
}

// New indexes docs.
func New(docs []Doc) *Index {
	ix := &Index{postings: map[string][]posting{}}
	var total float64
	for i, d := range docs {
		tf := map[string]float64{}
		var n float64
		for _, f := range d.Fields {
			w := f.Weight
			if w == 0 {
				w = 1
			}
			for _, t := range Terms(f.Text) {
				tf[t] += w
				n += w
			}
		}
		for t, f := range tf {
			ix.postings[t] = append(ix.postings[t], posting{i, f})
		}
		ix.ids = append(ix.ids, d.ID)
		ix.length = append(ix.length, n)
		total += n
	}
	if len(docs) > 0 {
		ix.avgLen = total / float64(len(docs))
	}
	return ix
}

// Len returns the number of documents.
func (ix *Index) Len() int { return len(ix.ids) }

// Search returns up to limit documents matching query, best first, among
// those allow accepts (nil accepts all). Documents matching no term of
// the query are left out.
func (ix *Index) Search(query string, limit int, allow func(id string) bool) []Hit {
	seen := map[string]bool{}
	var uniq []string
	for _, t := range Terms(query) {
		for _, x := range append([]string{t}, synonyms[t]...) {
			if !seen[x] {
				seen[x] = true
				uniq = append(uniq, x)
			}
		}
	}
	n := float64(len(ix.ids))
	scores := make([]float64, len(ix.ids))
	for _, t := range uniq {
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			norm := 1 - b + b*ix.length[p.doc]/ix.avgLen
			scores[p.doc] += idf * p.tf * (k1 + 1) / (p.tf + k1*norm)
		}
	}
	type scored struct {
		i     int
		score float64
	}
	var hits []scored
	for i, sc := range scores {
		if sc > 0 && (allow == nil || allow(ix.ids[i])) {
			hits = append(hits, scored{i, sc})
		}
	}
	sort.SliceStable(hits, func(a, c int) bool { return hits[a].score > hits[c].score })
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]Hit, len(hits))
	for j, h := range hits {
		out[j] = Hit{ID: ix.ids[h.i], Score: math.Round(h.score*1000) / 1000}
	}
	return out
}

// Terms splits text into lower-case, stemmed terms: words are split at
// non-letters and at camelCase boundaries (getBrakingZones → get, brake,
// zone), and stop words are dropped.
func Terms(text string) []string {
	var out []string
	var word []rune
	flush := func() {
		if len(word) > 0 {
			w := strings.ToLower(string(word))
			if !stop[w] && len(word) > 1 {
				out = append(out, Stem(w))
			}
			word = word[:0]
		}
	}
	rs := []rune(text)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			// A capital after a lower-case letter, or a capital followed
			// by a lower-case letter after capitals (HTTPServer), starts
			// a word.
			if unicode.IsUpper(r) && len(word) > 0 {
				prev := word[len(word)-1]
				if unicode.IsLower(prev) || unicode.IsDigit(prev) ||
					(unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
					flush()
				}
			}
			word = append(word, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// Stem strips common English inflections so that "braking", "brakes"
// and "brake" meet: a light suffix stripper, not a full Porter stemmer,
// chosen to be predictable on identifiers.
func Stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		return restoreE(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		return restoreE(w[:len(w)-2])
	case strings.HasSuffix(w, "es") && len(w) > 4 && strings.ContainsRune("sxz", rune(w[len(w)-3])):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return restoreE(w[:len(w)-1])
	}
	return restoreE(w)
}

// restoreE folds a trailing e, so that "brak" (from braking) and "brake"
// both become "brak".
func restoreE(w string) string {
	switch {
	case len(w) > 6 && strings.HasSuffix(w, "ee"):
		w = w[:len(w)-2] // assignee → assign
	case len(w) > 3 && strings.HasSuffix(w, "e") && !strings.HasSuffix(w, "ee"):
		w = w[:len(w)-1]
	}
	// Doubled consonants from inflection: "stopp" (stopping) → "stop".
	if n := len(w); n > 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	return w
}

// stop lists words too common to rank by.
var stop = map[string]bool{
	"a": true, "an": true, "and": true, "the": true, "of": true, "to": true, "in": true, "for": true,
	"on": true, "or": true, "by": true, "with": true, "is": true, "it": true, "as": true, "at": true,
	"be": true, "this": true, "that": true, "from": true, "are": true, "i": true, "me": true, "my": true,
	"your": true, "you": true, "its": true, "which": true, "all": true, "one": true,
}

// synonyms expands a query term (stemmed) with the words APIs use for
// the same action, so "find issues" meets searchIssues and "open a new
// issue" meets issuesCreate.
var synonyms = map[string][]string{
	"find":   {"search", "list"},
	"look":   {"search", "get"},
	"open":   {"creat"},
	"new":    {"creat"},
	"mak":    {"creat"},
	"add":    {"creat"},
	"writ":   {"creat", "sav"},
	"remov":  {"delet"},
	"fetch":  {"get"},
	"show":   {"get", "list"},
	"read":   {"get", "list"},
	"edit":   {"updat"},
	"chang":  {"updat"},
	"modify": {"updat"},
	"renam":  {"updat"},
	"clos":   {"updat"},
}
