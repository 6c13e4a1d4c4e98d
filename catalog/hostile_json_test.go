package catalog_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHostileJSON: arguments come from a model-written script. Deep
// nesting, huge numbers, long strings, duplicate and escaped member names
// must end in a validation error or a checked value, never a crash or a
// value that slips past the checks.
func TestHostileJSON(t *testing.T) {
	c, _ := newFixture(nil)
	deep := strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
	for _, tc := range []struct {
		name, fn, args, want string // want: a substring of the error JSON, or "" for success
	}{
		{"deep nesting in an ignored member", "getSessions", `{"x":` + deep + `}`, "Validation failed"},
		{"deep nesting in a strict call", "saveReport", `{` + goodReport + `,"x":` + deep + `}`, "Validation failed"},
		{"huge integer", "getSessions", `{"limit":` + strings.Repeat("9", 100000) + `}`, "Must be between"},
		{"huge exponent", "getSessions", `{"limit":1e999999999}`, "Validation failed"},
		{"duplicate member", "getSessions", `{"limit":1,"limit":2}`, "Duplicate field"},
		{"escaped duplicate member", "getSessions", `{"limit":1,"\u006cimit":2}`, "Duplicate field"},
		{"case-folded member is unknown, not limit", "saveReport", `{` + goodReport + `,"SESSIONID":"x"}`, "Unknown field"},
		{"escaped _validateOnly on a read", "getSessions", `{"_validate\u004fnly":true}`, "do not take _validateOnly"},
		{"invalid UTF-8", "getSessions", "{\"track\":\"\xff\"}", "Validation failed"},
		{"lone surrogate escape", "getSessions", `{"track":"\ud800"}`, "Validation failed"},
		{"long string", "getSessions", `{"track":"` + strings.Repeat("a", 1<<20) + `"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Call(driver(), tc.fn, json.RawMessage(tc.args))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			b, _ := json.Marshal(err)
			if len(b) > 1000 {
				t.Fatalf("a %d-byte error for the model: %.200s", len(b), b)
			}
			if !strings.Contains(string(b), tc.want) {
				t.Fatalf("error %s, want %q", b, tc.want)
			}
		})
	}
}
