package auditargs

import (
	"encoding/json"
	"testing"
)

// TestTopLevelSizes checks TopLevelSizes against what codemode's audit
// used to do, json.Unmarshal into a map of json.RawMessage, on objects and on
// inputs that are not one object.
func TestTopLevelSizes(t *testing.T) {
	for _, in := range []string{
		`{}`, ` { "a" : 1 , "b":[1, {"c":"x\"y"}] } `, `{"a":1,"a":"longer"}`, `null`,
		`{"k\u00e9":"\u00e9"}`, "{\"\xff\":\"\xfe\"}", `{"a":{"b":{"c":[true,false,null]}}}`,
		`[1,2]`, `"s"`, `1`, `{"a":1`, `{"a":1}}`, `{"a":1} {"b":2}`, `{"a":01}`, ``, `{"a"}`, `{,}`,
	} {
		var want map[string]json.RawMessage
		werr := json.Unmarshal([]byte(in), &want)
		got, ok := TopLevelSizes([]byte(in))
		if ok != (werr == nil) {
			t.Errorf("%q: ok %v, json.Unmarshal error %v", in, ok, werr)
			continue
		}
		if !ok {
			continue
		}
		if len(got) != len(want) {
			t.Errorf("%q: %d members, want %d", in, len(got), len(want))
		}
		for k, v := range want {
			if n, found := got[k]; !found || n != len(v) {
				t.Errorf("%q: member %q has size %d (found %v), want %d", in, k, n, found, len(v))
			}
		}
	}
}
