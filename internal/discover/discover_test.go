package discover

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

type sessionArgs struct {
	TrackName string `json:"trackName" jsonschema:"The circuit, as named in the session list"`
	Limit     int    `json:"limit,omitempty"`
	Tags      []struct {
		Name string `json:"name"`
	} `json:"tags,omitempty"`
}

type lapRow struct {
	LapTimeMs int `json:"lapTimeMs" jsonschema:"Lap time in milliseconds"`
}

func node(t *testing.T, v any, input bool) *jsontype.Node {
	t.Helper()
	n, err := jsontype.FromGo(reflect.TypeOf(v), input)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func testIndex(t *testing.T) *Index {
	return New([]Func{
		{ID: "bl.getSessions", Name: "getSessions", Description: "Lists your sessions, newest first. Filter by track.",
			Args: node(t, sessionArgs{}, true), Result: node(t, []lapRow{}, false)},
		{ID: "bl.deleteSession", Name: "deleteSession", Description: "Deletes one session and its laps."},
		{ID: "bl.getWeather", Name: "getWeather", Description: "Today's weather at a circuit."},
	})
}

func TestIndexRanks(t *testing.T) {
	x := testIndex(t)
	all := func(string) bool { return true }
	if got := x.Rank("sessions on a track", 5, all); len(got) == 0 || got[0] != "bl.getSessions" {
		t.Errorf("rank by name and summary: %v", got)
	}
	if got := x.Rank("milliseconds", 5, all); len(got) == 0 || got[0] != "bl.getSessions" {
		t.Errorf("rank by result field docs: %v", got)
	}
	if got := x.Rank("sessions", 5, func(id string) bool { return id != "bl.getSessions" }); len(got) != 1 || got[0] != "bl.deleteSession" {
		t.Errorf("bound filter: %v", got)
	}
	if x.Summary("bl.getSessions") != "Lists your sessions, newest first." || x.Summary("nope") != "" {
		t.Errorf("summary %q", x.Summary("bl.getSessions"))
	}
	out, err := x.Search("delete a session", 1, func(id string) (string, bool) { return "MUTATING", id == "bl.deleteSession" }, func(id string) string { return strings.TrimPrefix(id, "bl.") })
	if err != nil || string(out) != `[{"name":"deleteSession","tier":"MUTATING","summary":"Deletes one session and its laps."}]` {
		t.Errorf("search %s %v", out, err)
	}
}

func TestSummary(t *testing.T) {
	for in, want := range map[string]string{
		"One. Two.":                 "One.",
		"Line one\nLine two":        "Line one",
		strings.Repeat("word ", 30): "word word word word word word word word word word word word word word word word…",
		"":                          "",
	} {
		if got := Summary(in); got != want {
			t.Errorf("Summary(%q) = %q, want %q", in, got, want)
		}
	}
}

func raw(list ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(list))
	for i, s := range list {
		out[i] = json.RawMessage(s)
	}
	return out
}

func TestSearchArgs(t *testing.T) {
	for _, tc := range []struct {
		args    []json.RawMessage
		query   string
		limit   int
		wantErr string
	}{
		{raw(`"laps"`), "laps", DefaultSearchLimit, ""},
		{raw(`"laps"`, `{"limit":7}`), "laps", 7, ""},
		{raw(`"laps"`, `{"limit":500}`), "laps", MaxSearchLimit, ""},
		{raw(`"laps"`, `null`), "laps", DefaultSearchLimit, ""},
		{raw(`"laps"`, `{"limit":1.5}`), "", 0, "limit must be a whole number"},
		{raw(`"  "`), "", 0, "takes a query string"},
		{raw(`7`), "", 0, "takes a query string"},
		{raw(`"` + strings.Repeat("x", MaxQueryBytes+1) + `"`), "", 0, "use a few words"},
	} {
		q, l, err := SearchArgs(tc.args)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil || q != tc.query || l != tc.limit {
			t.Errorf("%s: %q %d %v", tc.args, q, l, err)
		}
	}
}

func TestDescribeArgs(t *testing.T) {
	if names, err := DescribeArgs(raw(`"getLaps"`)); err != nil || !reflect.DeepEqual(names, []string{"getLaps"}) {
		t.Errorf("one name: %v %v", names, err)
	}
	if names, err := DescribeArgs(raw(`["a","b"]`)); err != nil || !reflect.DeepEqual(names, []string{"a", "b"}) {
		t.Errorf("names: %v %v", names, err)
	}
	for _, bad := range [][]json.RawMessage{raw(), raw(`1`), raw(`[]`), raw(`"a"`, `"b"`)} {
		if _, err := DescribeArgs(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	if _, err := Args("search", json.RawMessage(`{}`)); err == nil || err.Error() != "codemode.search: unreadable arguments" {
		t.Errorf("Args: %v", err)
	}
	if err := NotAFunction("find"); !strings.HasPrefix(err.Error(), "codemode.find is not a function. Use codemode.search(") {
		t.Errorf("NotAFunction: %v", err)
	}
}

func TestTexts(t *testing.T) {
	list := List([]Group{
		{Tier: "READ-ONLY", Entries: []Entry{{Name: "getLaps", Summary: "Lists laps."}, {Name: "ping"}}},
		{Tier: "MUTATING"},
		{Tier: "CREATIVE", Entries: []Entry{{Name: "addNote", Summary: "Adds a note.", Approval: "@approval"}}},
	})
	if want := "READ-ONLY:\n- getLaps: Lists laps.\n- ping\n\nCREATIVE:\n- addNote: Adds a note. @approval"; list != want {
		t.Errorf("List:\n%s\nwant:\n%s", list, want)
	}
	if got := Shape(node(t, sessionArgs{}, true)); got != "{ trackName: string; limit?: number; tags?: {…}[] }" {
		t.Errorf("Shape: %s", got)
	}
	if got := Shape(node(t, 0, true)); got != "" {
		t.Errorf("Shape of a number: %q", got)
	}
	d := Declarations("bl", "  function chart(): Promise<string>;")
	if !strings.HasPrefix(d, "declare namespace codemode {") || !strings.Contains(d, "Ranks the functions of bl") || !strings.Contains(d, "function chart()") {
		t.Errorf("Declarations:\n%s", d)
	}
	x := testIndex(t)
	if got := x.Closest("getSesions", 2, "bl", 3, func(string) bool { return true }); !strings.HasPrefix(got, `The 2 of bl's 3 functions closest to "getSesions"`) {
		t.Errorf("Closest: %s", got)
	}
	if got := x.Closest("zzz", 2, "bl", 3, func(string) bool { return true }); !strings.HasPrefix(got, `No function of bl matches "zzz"`) {
		t.Errorf("Closest without hits: %s", got)
	}
}

func TestCache(t *testing.T) {
	var c Cache
	k := Key{Tool: "execute_code", Fn: "describe", Args: `["a"]`}
	if _, ok := c.Get(1, k); ok {
		t.Fatal("empty cache answered")
	}
	c.Put(1, k, Answer{Out: json.RawMessage(`"decl"`)})
	c.Put(1, Key{Tool: "execute_code", Fn: "describe", Args: `["b"]`}, Answer{Err: errors.New("no function b")})
	if a, ok := c.Get(1, k); !ok || string(a.Out) != `"decl"` || c.Len() != 2 {
		t.Fatalf("answer %v %v, %d held", a, ok, c.Len())
	}
	if _, ok := c.Get(2, k); ok {
		t.Error("an answer of another version")
	}
	c.Put(2, k, Answer{Out: json.RawMessage(`"new"`)})
	if c.Len() != 1 {
		t.Errorf("a new version kept %d answers", c.Len())
	}
	long := Key{Fn: "search", Args: strings.Repeat("x", maxCachedArgs+1)}
	c.Put(2, long, Answer{})
	if _, ok := c.Get(2, long); ok || c.Len() != 1 {
		t.Error("long arguments cached")
	}
	for i := range cacheEntries + 1 {
		c.Put(2, Key{Args: strings.Repeat("y", i)}, Answer{})
	}
	if c.Len() > cacheEntries {
		t.Errorf("%d answers held, at most %d", c.Len(), cacheEntries)
	}
}

// The first word of a summary is what a function does: "star a
// repository" finds the function whose summary starts with Star before
// one that lists starred repositories, though both hold both words.
func TestIndexRanksLeadWord(t *testing.T) {
	x := New([]Func{
		{ID: "gh.activity_list_starred_repos", Name: "activity_list_starred_repos", Description: "List repositories starred by a user."},
		{ID: "gh.activity_star_repo_for_user", Name: "activity_star_repo_for_user", Description: "Star a repository for the authenticated user."},
	})
	if got := x.Rank("star a repository", 2, func(string) bool { return true }); len(got) != 2 || got[0] != "gh.activity_star_repo_for_user" {
		t.Errorf("Rank(star a repository) = %v, want activity_star_repo_for_user first", got)
	}
	for in, want := range map[string]string{"Lists your sessions, newest first.": "Lists", " Create an issue": "Create", "": ""} {
		if got := leadWord(in); got != want {
			t.Errorf("leadWord(%q) = %q, want %q", in, got, want)
		}
	}
}
