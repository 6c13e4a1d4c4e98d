package rank

import (
	"reflect"
	"testing"
)

func TestTerms(t *testing.T) {
	for in, want := range map[string][]string{
		"getBrakingZones":             {"get", "brak", "zon"},
		"Braking consistency, brakes": {"brak", "consistency", "brak"},
		"HTTPServer listens":          {"http", "server", "listen"},
		"the user's issues":           {"user", "issu"},
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
