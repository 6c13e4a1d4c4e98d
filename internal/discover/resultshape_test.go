package discover

import (
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

func TestResultShape(t *testing.T) {
	str := &jsontype.Node{Shape: jsontype.String}
	num := &jsontype.Node{Shape: jsontype.Float}
	obj := func(fields ...jsontype.FieldNode) *jsontype.Node {
		return &jsontype.Node{Shape: jsontype.Struct, Fields: fields}
	}
	entity := obj(jsontype.FieldNode{Name: "name", Required: true, Node: str}, jsontype.FieldNode{Name: "score", Node: num})
	deep := obj(jsontype.FieldNode{Name: "inner", Required: true, Node: entity})
	cases := []struct {
		n    *jsontype.Node
		want string
	}{
		{nil, ""},
		{str, "string"},
		{obj(jsontype.FieldNode{Name: "content", Required: true, Node: str}), "{ content: string }"},
		{&jsontype.Node{Shape: jsontype.Slice, Elem: entity}, "{ name: string; score?: number }[]"},
		{obj(jsontype.FieldNode{Name: "entities", Required: true, Node: &jsontype.Node{Shape: jsontype.Slice, Elem: entity}}),
			"{ entities: { name: string; score?: number }[] }"},
		{obj(jsontype.FieldNode{Name: "a", Required: true, Node: deep}), "{ a: { inner: {…} } }"},
		{&jsontype.Node{Shape: jsontype.Any, Variants: []*jsontype.Node{str, {Shape: jsontype.Slice, Elem: &jsontype.Node{Shape: jsontype.Any, Variants: []*jsontype.Node{str, num}}}}},
			"string | (string | number)[]"},
	}
	for _, c := range cases {
		if got := ResultShape(c.n); got != c.want {
			t.Errorf("ResultShape = %q, want %q", got, c.want)
		}
	}
	// Past the bound, members nest one level less.
	var many []jsontype.FieldNode
	for _, n := range strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima") {
		many = append(many, jsontype.FieldNode{Name: n, Required: true, Node: entity})
	}
	if got := ResultShape(obj(many...)); len(got) > maxResultShape*2 || !strings.Contains(got, "alpha: {…}") {
		t.Errorf("a wide result: %q", got)
	}
}
