package jsontype_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

type Base struct {
	ID     string `json:"id"`
	Shadow int    `json:"shadow"`
	Clash  int
	//lint:ignore U1000 unexported fields must be skipped
	private int
}

type Other struct {
	Clash  int
	Tagged int `json:"tagged"`
}

type OtherTagged struct {
	Tagged int `json:"tagged"`
}

type unexportedEmbedded struct {
	Visible string `json:"visible"`
}

type Outer struct {
	Base
	*Other
	OtherTagged
	unexportedEmbedded
	Shadow string          `json:"shadow,omitempty" jsonschema:"Outer wins"`
	Ptr    *int            `json:"ptr"`
	Zero   int             `json:"zero,omitzero"`
	Req    *int            `json:"req" validate:"required"`
	Any    any             `json:"any"`
	Raw    json.RawMessage `json:"raw"`
	Skip   int             `json:"-"`
	//lint:ignore SA5008 a field named "-" is what this test checks
	Dash  int `json:"-,"`
	NoTag bool
	List  []string          `json:"list"`
	Named Base              `json:"named"`
	Map   map[string]string `json:"map,omitempty"`
}

func TestFields(t *testing.T) {
	var got []string
	for _, f := range jsontype.Fields(reflect.TypeFor[Outer]()) {
		s := f.Name
		if f.Required {
			s += "!"
		}
		got = append(got, s)
	}
	// Clash is dropped (two untagged at the same depth); tagged is dropped
	// (two tagged at the same depth); shadow comes from Outer.
	want := "id! visible! shadow ptr zero req! any raw -! NoTag! list! named! map"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("fields\n got %s\nwant %s", g, want)
	}
}

// TestFieldsMatchEncodingJSON checks the names against what encoding/json
// actually writes.
func TestFieldsMatchEncodingJSON(t *testing.T) {
	one := 1
	v := Outer{Other: &Other{}, Ptr: &one, Req: &one, Zero: 1, Shadow: "s", Map: map[string]string{"a": "b"}, Any: 1, Raw: json.RawMessage(`1`)}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	for _, f := range jsontype.Fields(reflect.TypeFor[Outer]()) {
		if _, ok := m[f.Name]; !ok {
			t.Errorf("field %s not in %s", f.Name, b)
		}
		delete(m, f.Name)
	}
	if len(m) != 0 {
		t.Errorf("encoding/json wrote members Fields does not list: %v", m)
	}
}

func TestSplitValidate(t *testing.T) {
	rules, elem := jsontype.SplitValidate("required,min=1,max=3|len=5,dive,oneof=a b")
	if len(rules) != 3 || rules[0].Tag != "required" || rules[1] != (jsontype.Rule{Tag: "min", Param: "1"}) || rules[2].Tag != "|" || elem != "oneof=a b" {
		t.Errorf("SplitValidate = %+v, %q", rules, elem)
	}
	if got := jsontype.OneOf("good 'needs work'  critical"); strings.Join(got, "|") != "good|needs work|critical" {
		t.Errorf("OneOf = %q", got)
	}
	// As validator/v10 splits, and so the checker: what a declaration
	// lists is what a call may pass.
	if got := jsontype.OneOf("it's\tx 'a"); strings.Join(got, "|") != "its|x|a" {
		t.Errorf("OneOf = %q", got)
	}
}

func TestSplitValidateDropsKeyRules(t *testing.T) {
	for tag, want := range map[string]string{
		"min=1,dive,keys,min=2,endkeys,gt=0": "gt=0",
		"dive,keys,alpha,endkeys":            "",
		"dive,keys,alpha":                    "",
		"dive,min=1":                         "min=1",
	} {
		if _, elem := jsontype.SplitValidate(tag); elem != want {
			t.Errorf("SplitValidate(%q) elements = %q, want %q", tag, elem, want)
		}
	}
}
