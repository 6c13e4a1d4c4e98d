package jsonvalue

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestParse(t *testing.T) {
	v, err := Parse([]byte(` {"b": [1.50, true, null], "a": {"z": "x", "y": 2e3}} `), true)
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*Object)
	if !reflect.DeepEqual(o.Keys, []string{"b", "a"}) || !reflect.DeepEqual(o.M["a"].(*Object).Keys, []string{"z", "y"}) {
		t.Errorf("member order lost: %v, %v", o.Keys, o.M["a"].(*Object).Keys)
	}
	if got := o.M["b"].([]any); got[0] != json.Number("1.50") || got[1] != true || got[2] != nil {
		t.Errorf("values %#v", got)
	}
	if o.Str("missing") != "" || o.M["a"].(*Object).Str("z") != "x" {
		t.Error("Str")
	}
	if _, ok := (*Object)(nil).Get("a"); ok {
		t.Error("a nil Object has members")
	}

	v, err = Parse([]byte(`{"b":1,"a":{"c":[]}}`), false)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"b": json.Number("1"), "a": map[string]any{"c": []any{}}}; !reflect.DeepEqual(v, want) {
		t.Errorf("unordered: %#v", v)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in       string
		trailing bool
		syntax   bool
	}{
		{`{"a":1,"a":2}`, false, true},
		{"\"\xff\"", false, true},
		{`{"a":`, false, true},
		{`{} {}`, true, false},
		{`{} x`, true, true},
		{``, false, false}, // io.EOF
	} {
		for _, ordered := range []bool{false, true} {
			_, err := Parse([]byte(tc.in), ordered)
			if err == nil {
				t.Errorf("%q: no error", tc.in)
				continue
			}
			var se *jsontext.SyntacticError
			if errors.Is(err, ErrTrailing) != tc.trailing || errors.As(err, &se) != tc.syntax {
				t.Errorf("%q (ordered %v): %v", tc.in, ordered, err)
			}
		}
	}
}
