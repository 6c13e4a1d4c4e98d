package rank

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestTerms(t *testing.T) {
	for in, want := range map[string][]string{
		"getBrakingZones":             {"get", "brak", "zon"},
		"Braking consistency, brakes": {"brak", "consistency", "brak"},
		"HTTPServer listens":          {"http", "server", "listen"},
		"the user's issues":           {"user", "issu"},
		// snake_case and camelCase identifiers split into their words,
		// and plural and verb forms meet their stem.
		"pulls_list":                             {"pull", "list"},
		"issues_create_comment":                  {"issu", "creat", "comment"},
		"listPullRequests":                       {"list", "pull", "request"},
		"List the pull requests of a repository": {"list", "pull", "request", "repository"},
		"listing repositories":                   {"list", "repository"},
		"starred":                                {"star"},
		"/repos/{owner}/{repo}/pulls":            {"repo", "owner", "repo", "pull"},
	} {
		if got := Terms(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSynonymsCoverTheirWords(t *testing.T) {
	for _, w := range []string{"find", "open", "new", "make", "add", "write", "remove", "fetch", "show", "read", "edit", "change", "modify", "rename", "close"} {
		if _, ok := synonyms[Terms(w)[0]]; !ok {
			t.Errorf("%q (stem %q) has no synonyms", w, Terms(w)[0])
		}
	}
}

func TestSearch(t *testing.T) {
	ix := New([]Doc{
		{ID: "getSessions", Fields: []Field{{Text: "getSessions", Weight: 3}, {Text: "Lists your sessions, newest first."}}},
		{ID: "getBrakingZones", Fields: []Field{{Text: "getBrakingZones", Weight: 3}, {Text: "Braking into each corner: brake point and consistency."}}},
		{ID: "deleteSession", Fields: []Field{{Text: "deleteSession", Weight: 3}, {Text: "Deletes a session."}}},
	})
	got := ix.Search("braking consistency", 5, nil)
	if len(got) != 1 || got[0].ID != "getBrakingZones" {
		t.Fatalf("Search(braking consistency) = %v", got)
	}
	got = ix.Search("remove a session", 5, nil)
	if len(got) == 0 || got[0].ID != "deleteSession" {
		t.Fatalf("Search(remove a session) = %v, want deleteSession first (remove → delete)", got)
	}
	got = ix.Search("session", 5, func(id string) bool { return id != "deleteSession" })
	for _, h := range got {
		if h.ID == "deleteSession" {
			t.Fatal("Search returned a document allow refused")
		}
	}
	if a, b := ix.Search("session", 5, nil), ix.Search("session", 5, nil); !reflect.DeepEqual(a, b) {
		t.Fatal("Search is not deterministic")
	}
	if got := ix.Search("telemetry", 5, nil); len(got) != 0 {
		t.Fatalf("Search(telemetry) = %v, want nothing", got)
	}
}

func TestStem(t *testing.T) {
	for _, words := range [][]string{
		{"pull", "pulls"},
		{"request", "requests", "requested"},
		{"issue", "issues"},
		{"list", "lists", "listing", "listed"},
		{"create", "creates", "creating", "created"},
		{"repository", "repositories"},
		{"star", "stars", "starred", "starring"},
		{"branch", "branches"},
	} {
		for _, w := range words[1:] {
			if Stem(w) != Stem(words[0]) {
				t.Errorf("Stem(%q) = %q, Stem(%q) = %q: want the same stem", w, Stem(w), words[0], Stem(words[0]))
			}
		}
	}
}

// A field is normalised by its own length: a document whose long result
// field holds none of the query's words is not buried under one whose
// name holds them all.
func TestFieldLengthNormalisation(t *testing.T) {
	long := strings.Repeat("title body state number url head base ", 30)
	ix := New([]Doc{
		{ID: "interactions_get_pull_request_bypass_list", Fields: []Field{{Text: "interactions_get_pull_request_bypass_list", Weight: 4}, {Text: "Get pull request bypass list", Weight: 3}, {Text: "login"}}},
		{ID: "pulls_list", Fields: []Field{{Text: "pulls_list", Weight: 4}, {Text: "List pull requests", Weight: 3}, {Text: long}}},
		{ID: "repos_get", Fields: []Field{{Text: "repos_get", Weight: 4}, {Text: "Get a repository", Weight: 3}, {Text: "id url"}}},
	})
	if got := ix.Search("list the pull requests", 3, nil); len(got) < 2 || got[0].ID != "pulls_list" {
		t.Errorf("Search(list the pull requests) = %v, want pulls_list first", got)
	}
}

// B: 1 on a short field ranks a name or summary with more words than the
// query asks for under the one that says exactly the query; with no
// length normalisation the longer one, holding "request" in its name too,
// wins.
func TestFieldB(t *testing.T) {
	docs := func(b float64) []Doc {
		return []Doc{
			{ID: "pull_request_stacks_list", Fields: []Field{{Text: "pull_request_stacks_list", Weight: 4, B: b}, {Text: "List pull request stacks", Weight: 3, B: b}}},
			{ID: "pulls_list", Fields: []Field{{Text: "pulls_list", Weight: 4, B: b}, {Text: "List pull requests", Weight: 3, B: b}}},
		}
	}
	if got := New(docs(1)).Search("list pull requests", 2, nil); len(got) != 2 || got[0].ID != "pulls_list" {
		t.Errorf("B 1: %v, want pulls_list first", got)
	}
	if got := New(docs(1e-9)).Search("list pull requests", 2, nil); len(got) != 2 || got[0].ID != "pull_request_stacks_list" {
		t.Errorf("B about 0: %v, want pull_request_stacks_list first", got)
	}
}

// A query word and its synonyms are one term: a document holding both
// "remove" and "delete" does not score twice, and the query's own word
// counts more than its synonym.
func TestSynonymsAreOneTerm(t *testing.T) {
	ix := New([]Doc{
		{ID: "deleteNote", Fields: []Field{{Text: "deleteNote"}, {Text: "Deletes a note."}}},
		{ID: "removeTag", Fields: []Field{{Text: "removeTag"}, {Text: "Removes a tag."}}},
		{ID: "both", Fields: []Field{{Text: "removeOrDelete"}, {Text: "Removes or deletes."}}},
	})
	got := ix.Search("remove", 3, nil)
	score := map[string]float64{}
	for _, h := range got {
		score[h.ID] = h.Score
	}
	if len(got) != 3 || score["removeTag"] <= score["deleteNote"] {
		t.Errorf("Search(remove) = %v, want removeTag over deleteNote (the word over its synonym)", got)
	}
	// Counted twice, "both" would score about the sum of the other two.
	if score["both"] >= score["removeTag"]+score["deleteNote"]*0.9 {
		t.Errorf("Search(remove) = %v: a document with the word and its synonym counts them as two terms", got)
	}
}

func TestNewEmpty(t *testing.T) {
	ix := New(nil)
	if ix.Len() != 0 || len(ix.Search("anything", 5, nil)) != 0 {
		t.Error("an empty index found something")
	}
	ix = New([]Doc{{ID: "x"}, {ID: "y", Fields: []Field{{Text: ""}, {Text: "only here"}}}})
	if got := ix.Search("only", 5, nil); len(got) != 1 || got[0].ID != "y" {
		t.Errorf("Search(only) = %v", got)
	}
}

// Out-of-range weights and B are clamped: no score is infinite, NaN or
// negative, and nothing panics.
func TestFieldBounds(t *testing.T) {
	for _, f := range []Field{{Weight: -3}, {B: 7}, {B: -2}, {Weight: math.NaN()}, {Weight: math.Inf(1)}, {B: math.NaN()}, {B: math.Inf(-1)}} {
		f.Text = "xy"
		ix := New([]Doc{{ID: "a", Fields: []Field{f}}, {ID: "b", Fields: []Field{{Text: "a much longer text, with xy in it and more words after"}, f}}})
		got := ix.Search("xy longer", 5, nil)
		if len(got) != 2 {
			t.Errorf("field %+v: %v, want both documents", f, got)
		}
		for _, h := range got {
			if math.IsNaN(h.Score) || math.IsInf(h.Score, 0) || h.Score <= 0 {
				t.Errorf("field %+v: score %v", f, h)
			}
		}
	}
}
