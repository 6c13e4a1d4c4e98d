// Package discover is how the model finds the functions of code mode, on
// its own: an index of functions ranked for a query in plain words
// (codemode.search), search and describe for one code tool ([Index.Call],
// [Index.Describe]) and the functions closest to an unknown name
// ([Index.Suggest]), how their calls read their arguments and what their
// limits are, the texts of their errors and declarations, the tool
// description in full or index mode ([Description]) with the lines of its
// index, the brief shape of an argument object, a cache of answers
// ([Cache]) and each execution's budget of discovery calls ([Budget]).
//
// It reads a function's name, description and type model (jsontype.Node)
// and nothing else: which functions a tool binds, how a name is shown to
// the model, which writes it withholds and how declarations are rendered
// are its caller's (package codemode), which passes them in as a [Tool].
// Every answer is a pure function of the functions indexed, so a caller
// may cache it per catalogue version.
package discover

import (
	"strings"

	"github.com/brakinglab/codemode-go/internal/jsontype"
	"github.com/brakinglab/codemode-go/internal/rank"
)

// Func is one function as the index sees it.
type Func struct {
	// ID names the function uniquely: its qualified name,
	// namespace.function.
	ID string
	// Name is the function's own name, without its namespace.
	Name string
	// Description is the function's documentation.
	Description string
	// Args and Result are the type model of its arguments and result
	// (either may be nil).
	Args, Result *jsontype.Node
}

// Index ranks functions for a query: BM25F (internal/rank) over each
// function's name, summary, the summary's first word (its verb),
// description, and the member names and docs of its arguments and result.
// The name and the summary say what a function is for and weigh most; a
// name or summary with more words than the query asks for weighs less
// (full length normalisation), so that pulls_list, "List pull requests",
// ranks above pull_request_stacks_list for "list pull requests". Field
// names and docs say what a function takes and gives, and weigh less; each
// field is normalised by its own length, so that a result with a hundred
// members does not bury its function.
type Index struct {
	ix      *rank.Index
	summary map[string]string
}

// New indexes fns.
func New(fns []Func) *Index {
	x := &Index{summary: make(map[string]string, len(fns))}
	docs := make([]rank.Doc, 0, len(fns))
	for _, f := range fns {
		x.summary[f.ID] = Summary(f.Description)
		var argNames, argDocs, resNames, resDocs strings.Builder
		fieldText(f.Args, &argNames, &argDocs, map[*jsontype.Node]bool{}, 0)
		fieldText(f.Result, &resNames, &resDocs, map[*jsontype.Node]bool{}, 0)
		summary := x.summary[f.ID]
		// The weighted fields of one function's document (see Index).
		docs = append(docs, rank.Doc{ID: f.ID, Fields: []rank.Field{
			{Text: f.Name, Weight: 4, B: 1},
			{Text: summary, Weight: 3, B: 1},
			{Text: leadWord(summary), Weight: 3},
			{Text: f.Description, Weight: 1},
			{Text: argNames.String(), Weight: 0.7},
			{Text: argDocs.String(), Weight: 0.4},
			{Text: resNames.String(), Weight: 0.2},
			{Text: resDocs.String(), Weight: 0.1},
		}})
	}
	x.ix = rank.New(docs)
	return x
}

// Summary returns the summary of function id: the first sentence of its
// description (see the function Summary); "" for an unknown id.
func (x *Index) Summary(id string) string { return x.summary[id] }

// Rank returns the IDs of the functions that match query best, best
// first, at most limit of them, among those bound accepts.
func (x *Index) Rank(query string, limit int, bound func(id string) bool) []string {
	hits := x.ix.Search(query, limit, bound)
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

// leadWord returns the first word of a summary: by the convention of Go
// doc comments and OpenAPI summaries, what the function does ("Lists …",
// "Create an issue"), which a query names too ("star a repository" means
// the function whose summary starts with Star, not one that lists starred
// repositories).
func leadWord(summary string) string {
	word, _, _ := strings.Cut(strings.TrimSpace(summary), " ")
	return word
}

// fieldText collects the member names and docs reachable from n, three
// levels deep, from the type model every kind of function shares.
func fieldText(n *jsontype.Node, names, docs *strings.Builder, seen map[*jsontype.Node]bool, depth int) {
	for i := 0; n != nil && n.Shape != jsontype.Struct && n.Elem != nil; i++ {
		if i > jsontype.MaxSchemaDepth {
			return // a chain without end (the type model has none; bounded anyway)
		}
		n = n.Elem // pointers, arrays, records
	}
	if n == nil || n.Shape != jsontype.Struct || seen[n] || depth > 2 {
		return
	}
	seen[n] = true
	for _, f := range n.Fields {
		names.WriteString(f.Name + " ")
		if f.Doc != "" {
			docs.WriteString(f.Doc + " ")
		}
		fieldText(f.Node, names, docs, seen, depth+1)
	}
}

// summaryChars bounds a summary.
const summaryChars = 80

// Summary returns the first sentence of a description, at most 80
// characters long, cut at a word.
func Summary(desc string) string {
	s := strings.TrimSpace(desc)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if len(s) > summaryChars {
		cut := strings.LastIndexByte(s[:summaryChars], ' ')
		if cut < summaryChars/2 {
			cut = summaryChars
		}
		s = strings.TrimRight(s[:cut], " ,;:") + "…"
	}
	return s
}
