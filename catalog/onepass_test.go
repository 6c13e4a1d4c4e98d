package catalog_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
)

// TestOnePassEveryIssue checks that one call reports every issue the
// decoding and the validate tags find: members that decoded fine are
// still tag-validated, nested ones too, while a member at fault is not
// reported twice; and the Validate hook does not run until they pass.
func TestOnePassEveryIssue(t *testing.T) {
	c, st := newFixture(nil)
	for _, tc := range []struct {
		name, args string
		want       string
	}{
		{"wrong type, unknown field, bad enum",
			`{"sessionId":"ses_other","summary":5,"corners":[{"corner":1,"verdict":"meh"}],"session":"x"}`,
			`[{"path":["summary"],"message":"Expected string, got number"},{"path":["session"],"message":"Unknown field (did you mean \"sessionId\"?)"},{"path":["corners",0,"verdict"],"message":"Must be one of: good, needs_work, critical"}]`},
		{"a faulty member is reported once, its siblings still checked",
			`{"sessionId":"ses_1","summary":"ok!","corners":[{"corner":"1","verdict":"meh","advice":"far too long for twenty"}]}`,
			`[{"path":["corners",0,"corner"],"message":"Expected number, got string"},{"path":["corners",0,"verdict"],"message":"Must be one of: good, needs_work, critical"},{"path":["corners",0,"advice"],"message":"Must be at most 20 characters"}]`},
		{"a missing required field is not reported twice",
			`{"summary":"x","corners":[{"corner":1,"verdict":"good"}],"flag":"yes"}`,
			`[{"path":["sessionId"],"message":"Required field"},{"path":["flag"],"message":"Expected boolean, got string"},{"path":["summary"],"message":"Must be at least 3 characters"}]`},
		{"an array element of the wrong type drops the array from the tag pass",
			`{"sessionId":"ses_1","summary":"x","corners":[5]}`,
			`[{"path":["corners",0],"message":"Expected object, got number"},{"path":["summary"],"message":"Must be at least 3 characters"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Call(driver(), "saveReport", json.RawMessage(tc.args))
			ve, ok := err.(*catalog.ValidationError)
			if !ok {
				t.Fatalf("err = %v (%T), want *ValidationError", err, err)
			}
			got, _ := json.Marshal(ve.Issues)
			var g, w any
			_ = json.Unmarshal(got, &g)
			if err := json.Unmarshal([]byte(tc.want), &w); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("issues\n got %s\nwant %s", got, tc.want)
			}
		})
	}
	if len(st.saved) != 0 {
		t.Errorf("a handler ran: %+v", st.saved)
	}
}

// TestReadOnlyIgnoredFieldsWarn checks that a READ-ONLY function still
// succeeds with unknown fields and returns a warning for each, with the
// nearest declared field, and that MUTATING functions name it in the error.
func TestReadOnlyIgnoredFieldsWarn(t *testing.T) {
	c, _ := newFixture(nil)
	out, warns, err := c.CallWithWarnings(driver(), "getSessions", json.RawMessage(`{"trak":"Spa","lim":1,"zzz":true}`))
	if err != nil {
		t.Fatal(err)
	}
	var sessions []any
	if json.Unmarshal(out, &sessions); len(sessions) != 2 {
		t.Errorf("result %s: the ignored filter should not have filtered", out)
	}
	want := []string{
		`getSessions ignored unknown field "lim" (did you mean "limit"?)`,
		`getSessions ignored unknown field "trak" (did you mean "track"?)`,
		`getSessions ignored unknown field "zzz"`,
	}
	if len(warns) != len(want) {
		t.Fatalf("warnings = %+v", warns)
	}
	for i, w := range warns {
		if w.Message != want[i] || w.Path[0] != []string{"lim", "trak", "zzz"}[i] {
			t.Errorf("warning %d = %+v, want %s", i, w, want[i])
		}
	}
	// Warnings come with a failed call too.
	_, warns, err = c.CallWithWarnings(driver(), "getSessions", json.RawMessage(`{"limit":"x","trak":"Spa"}`))
	if err == nil || len(warns) != 1 {
		t.Errorf("err = %v, warnings = %+v", err, warns)
	}
	// A well-formed call has none.
	if _, warns, _ = c.CallWithWarnings(driver(), "getSessions", json.RawMessage(`{"track":"Spa"}`)); len(warns) != 0 {
		t.Errorf("warnings = %+v", warns)
	}
}
