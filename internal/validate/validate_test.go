package validate_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/internal/jsontype"
	"github.com/brakinglab/codemode-go/internal/validate"
)

// These tests pin the behaviours a reader of the package should see at a
// glance. The differential test against validator/v10, with thousands of
// seeded cases, is internal/integration/validatediff_test.go.

type Meta struct {
	Source string `json:"source,omitempty" validate:"omitempty,oneof=manual ai"`
	Code   string `json:"code,omitempty" validate:"required_with=Source"`
}

type Corner struct {
	N       int    `json:"n" validate:"min=1"`
	Verdict string `json:"verdict" validate:"required,oneof=good 'needs work'"`
}

type args struct {
	*Meta   `validate:"required"`
	Name    string         `json:"name" validate:"min=2,max=4"`
	Count   *int           `json:"count,omitempty" validate:"required"`
	Corners []Corner       `json:"corners" validate:"min=1,dive"`
	Free    []Corner       `json:"free,omitempty"`
	Scores  map[string]int `json:"scores,omitempty" validate:"dive,keys,alpha,endkeys,gte=0"`
	Either  string         `json:"either,omitempty" validate:"uuid4|email"`
	Skipped string         `json:"skipped,omitempty" validate:"-"`
}

func check(t *testing.T, v any) []validate.Issue {
	t.Helper()
	n, err := jsontype.FromGo(reflect.TypeOf(v).Elem(), true)
	if err != nil {
		t.Fatal(err)
	}
	p, err := validate.Compile(n)
	if err != nil {
		t.Fatal(err)
	}
	return p.Check(reflect.ValueOf(v), 20)
}

func TestCheck(t *testing.T) {
	zero := 0
	for _, tc := range []struct {
		name string
		v    *args
		want []validate.Issue
	}{
		{"valid, a pointer to 0 counts as given", &args{Meta: &Meta{}, Name: "héé", Count: &zero,
			Corners: []Corner{{N: 1, Verdict: "needs work"}}, Free: []Corner{{}}, Scores: map[string]int{"a": 1},
			Either: "a@b.co", Skipped: "anything"}, nil},
		{"every rule broken", &args{Name: "ééééé", Corners: []Corner{{Verdict: "meh"}},
			Scores: map[string]int{"b": -1, "a1": 1}, Either: "x"}, []validate.Issue{
			{Path: []any{}, Message: "Required field"},
			{Path: []any{"name"}, Message: "Must be at most 4 characters"},
			{Path: []any{"count"}, Message: "Required field"},
			{Path: []any{"corners", 0, "n"}, Message: "Must be at least 1"},
			{Path: []any{"corners", 0, "verdict"}, Message: "Must be one of: good, needs work"},
			{Path: []any{"scores", "a1"}, Message: "Must contain only letters"},
			{Path: []any{"scores", "b"}, Message: "Must be at least 0"},
			{Path: []any{"either"}, Message: "Failed the uuid4|email rule"},
		}},
		{"embedded members, sibling named in JSON", &args{Meta: &Meta{Source: "ai"}, Name: "ab", Count: &zero,
			Corners: []Corner{{N: 1, Verdict: "good"}}, Either: "a@b.co"}, []validate.Issue{
			{Path: []any{"code"}, Message: "Must not be empty"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := check(t, tc.v); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("issues:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestCompileRefuses(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{&struct {
			N int `json:"n" validate:"mni=1"`
		}{}, `field N: validate tag "mni=1": unknown rule "mni"`},
		{&struct {
			S string `json:"s" validate:"excluded_with=T"`
		}{}, `unknown rule "excluded_with"`},
		{&struct {
			F float64 `json:"f" validate:"oneof=1 2"`
		}{}, "rule oneof does not apply to float64"},
		{&struct {
			L []map[string]int `json:"l" validate:"unique"`
		}{}, "elements of type map[string]int cannot be compared"},
		{&struct {
			S string `json:"s" validate:"required_if=T"`
			T string `json:"t"`
		}{}, "pairs of a member and a value"},
		{&struct {
			S string `json:"s" validate:"endkeys"`
		}{}, "endkeys without keys"},
	} {
		n, err := jsontype.FromGo(reflect.TypeOf(tc.v).Elem(), true)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := validate.Compile(n); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compile(%T) = %v, want an error mentioning %q", tc.v, err, tc.want)
		}
	}
}

func TestHolds(t *testing.T) {
	for _, tc := range []struct {
		tag, param string
		v          any
		want       bool
	}{
		{"min", "3", "héé", true},
		{"min", "3", "hé", false},
		{"min", "2", []any{1.0}, false},
		{"max", "2", map[string]any{"a": 1.0}, true},
		{"gt", "1.5", 2.0, true},
		{"email", "", "a@b.co", true},
		{"unique", "", []any{"a", "a"}, false},
		{"unique", "", []any{map[string]any{}}, true}, // cannot compare: the schema validator decides
		{"min", "abc", "x", true},                     // malformed: likewise
		{"nosuchrule", "", "x", true},
	} {
		if got := validate.Holds(tc.tag, tc.param, tc.v); got != tc.want {
			t.Errorf("Holds(%s=%s, %#v) = %v, want %v", tc.tag, tc.param, tc.v, got, tc.want)
		}
	}
}
