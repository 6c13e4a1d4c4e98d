package approval

import (
	"encoding/json"
	"testing"
)

// TestDryRunArgs checks the approval host's two uses of the catalog's
// canonical arguments: a dry run's arguments carry the catalog's dry-run
// key set to true whatever the script gave, and arguments that are not an
// object go to the catalog as they are, for it to refuse.
func TestDryRunArgs(t *testing.T) {
	for in, want := range map[string]string{
		``:     `{"_validateOnly":true}`,
		`null`: `{"_validateOnly":true}`,
		`{}`:   `{"_validateOnly":true}`,
		`{ "b": 1, "a": [2.50], "_validateOnly": false }`: `{"_validateOnly":true,"a":[2.50],"b":1}`,
		`[1]`:           `[1]`,
		`{"a":1,"a":2}`: `{"a":1,"a":2}`,
	} {
		got := withValidateOnly(json.RawMessage(in))
		if string(got) != want {
			t.Errorf("withValidateOnly(%s) = %s, want %s", in, got, want)
		}
	}
	canon, dry, ok := canonicalArgs(withValidateOnly(json.RawMessage(`{"b":1,"a":2}`)))
	if !ok || !dry || string(canon) != `{"a":2,"b":1}` {
		t.Errorf("canonicalArgs of a dry run: %s %v %v", canon, dry, ok)
	}
	if _, _, ok := canonicalArgs(json.RawMessage(`"text"`)); ok {
		t.Error("a string is canonical arguments")
	}
}
