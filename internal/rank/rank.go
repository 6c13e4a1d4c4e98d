// Package rank ranks documents for a free-text query with BM25F (Robertson,
// Zaragoza and Taylor, "Simple BM25 extension to multiple weighted
// fields", 2004): each field's term frequencies are normalised by that
// field's own length against its average, weighted, and summed into one
// pseudo-frequency per term, which BM25 then saturates. So a word in a
// function's name counts more than the same word in a field's
// documentation, and a long result schema does not bury a short name that
// says exactly what was asked. A query term and its synonyms are scored as
// one term (their frequencies add up, a synonym's at half weight), so a
// document holding both is not counted twice.
//
// It is deterministic (ties are broken by document order), needs no
// network and no model, and answers in microseconds for a few thousand
// documents.
package rank

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
)

// Field is one weighted part of a document. Fields are matched by
// position: the i-th field of every document is one field, with one
// average length.
type Field struct {
	Text   string
	Weight float64 // how much a term here counts; 0 (or less, or not finite) means 1
	// B is how much the field's length normalises its terms, from 0 (not
	// at all; any negative value) to 1 (in proportion to its length over
	// the field's average length; any larger value); 0 means 0.75, the
	// usual value (and so does NaN). A short field that names what
	// a document does (a name, a summary) is best at 1, so that a name with
	// extra words ranks under the one that says exactly the query.
	B float64
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

// BM25 parameters. k1 saturates a term's pseudo-frequency; it is the
// usual 1.2 scaled by the few-fold weights fields carry (a name's weight
// is about 4), so that a term found in the name and the summary still
// counts more than one found in the name alone. b is the default length
// normalisation of a field. synonymWeight is how much a synonym's
// frequency counts beside the query's own word.
const (
	k1            = 5
	b             = 0.75
	synonymWeight = 0.5
)

// Index is an immutable BM25F index. It is safe for concurrent use.
type Index struct {
	ids      []string
	postings map[string][]posting // term → the documents holding it, in order
}

// posting is one document's pseudo-frequency of a term: the sum over its
// fields of weight × frequency, each field normalised by its own length.
type posting struct {
	doc int
	tf  float64
}

// New indexes docs.
func New(docs []Doc) *Index {
	ix := &Index{ids: make([]string, len(docs)), postings: map[string][]posting{}}
	terms := make([][][]string, len(docs))
	var total []float64 // terms per field position, over all documents
	for i, d := range docs {
		terms[i] = make([][]string, len(d.Fields))
		for j, f := range d.Fields {
			terms[i][j] = Terms(f.Text)
			if j == len(total) {
				total = append(total, 0)
			}
			total[j] += float64(len(terms[i][j]))
		}
	}
	for i, d := range docs {
		tf := map[string]float64{}
		for j, f := range d.Fields {
			n := float64(len(terms[i][j]))
			if n == 0 {
				continue
			}
			w, bf := f.Weight, f.B
			if !(w > 0) || math.IsInf(w, 1) {
				w = 1
			}
			switch {
			case bf == 0 || math.IsNaN(bf):
				bf = b
			case bf < 0:
				bf = 0
			case bf > 1:
				bf = 1
			}
			avg := total[j] / float64(len(docs))
			w /= 1 - bf + bf*n/avg
			for _, t := range terms[i][j] {
				tf[t] += w
			}
		}
		for t, f := range tf {
			ix.postings[t] = append(ix.postings[t], posting{i, f})
		}
		ix.ids[i] = d.ID
	}
	return ix
}

// Len returns the number of documents.
func (ix *Index) Len() int { return len(ix.ids) }

// Search returns up to limit documents matching query, best first, among
// those allow accepts (nil accepts all). Documents matching no term of
// the query are left out.
func (ix *Index) Search(query string, limit int, allow func(id string) bool) []Hit {
	n := float64(len(ix.ids))
	scores := make([]float64, len(ix.ids))
	tf := make([]float64, len(ix.ids)) // one query term's, per document
	var touched []int
	seen := map[string]bool{}
	for _, t := range Terms(query) {
		if seen[t] {
			continue
		}
		seen[t] = true
		// The term and its synonyms are one term, as in Lucene's
		// SynonymQuery: frequencies add up, and the commonest member's
		// document frequency sets the weight.
		df := 0
		for k, x := range append([]string{t}, synonyms[t]...) {
			w := 1.0
			if k > 0 {
				w = synonymWeight
			}
			ps := ix.postings[x]
			df = max(df, len(ps))
			for _, p := range ps {
				if tf[p.doc] == 0 {
					touched = append(touched, p.doc)
				}
				tf[p.doc] += w * p.tf
			}
		}
		idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
		for _, d := range touched {
			scores[d] += idf * tf[d] * (k1 + 1) / (tf[d] + k1)
			tf[d] = 0
		}
		touched = touched[:0]
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
	// Best first; ties in document order.
	slices.SortFunc(hits, func(a, c scored) int {
		if a.score != c.score {
			return cmp.Compare(c.score, a.score)
		}
		return cmp.Compare(a.i, c.i)
	})
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
