package jsontype_test

import (
	"reflect"
	"regexp"
	"testing"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// TestHumanLayout checks that Go layouts reach the model in the notation
// people write, and that the schema pattern accepts what the layout parses.
func TestHumanLayout(t *testing.T) {
	for layout, want := range map[string]string{
		"2006-01-02":          "YYYY-MM-DD",
		"15:04":               "HH:mm",
		"2006-01-02T15:04:05": "YYYY-MM-DDTHH:mm:ss",
		"02.01.2006 3:04 PM":  "DD.MM.YYYY h:mm AM/PM",
	} {
		if got := jsontype.HumanLayout(layout); got != want {
			t.Errorf("HumanLayout(%q) = %q, want %q", layout, got, want)
		}
	}
	spec, _ := jsontype.LookupRule("datetime")
	kws := spec.SchemaKeywords(reflect.String, "2006-01-02")
	re := regexp.MustCompile(kws[0].Value.(string))
	if !re.MatchString("2026-11-23") || re.MatchString("23.11.2026") {
		t.Errorf("pattern %s", re)
	}
	if msg := spec.Message(reflect.String, "2006-01-02"); msg != "Must be a date/time written as YYYY-MM-DD" {
		t.Errorf("message %q", msg)
	}
}
