package jsontype_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

type linked struct {
	Value int     `json:"value"`
	Next  *linked `json:"next,omitempty"`
}

type tree struct {
	Children []tree `json:"children"`
}

type selfSlice []selfSlice

type selfMap map[string]selfMap

// A type that reaches itself through a struct is a recursive type the
// declarations name, however it is first reached: by value, through a
// pointer, a slice or a field of another struct. A type that reaches
// itself through no struct (type L []L) is refused, naming it.
func TestFromGoRecursion(t *testing.T) {
	for _, typ := range []any{
		linked{}, &linked{}, []*linked{}, struct{ L *linked }{}, struct{ L []linked }{},
		tree{}, map[string]*tree{}, struct{ T struct{ L *linked } }{},
	} {
		rt := reflect.TypeOf(typ)
		for _, input := range []bool{true, false} {
			if _, err := jsontype.FromGo(rt, input); err != nil {
				t.Errorf("FromGo(%v, input=%v): %v", rt, input, err)
			}
		}
	}
	for _, typ := range []any{selfSlice{}, selfMap{}, struct{ S selfSlice }{}, []selfMap{}} {
		rt := reflect.TypeOf(typ)
		_, err := jsontype.FromGo(rt, true)
		if err == nil || !strings.Contains(err.Error(), "contains itself through no struct") {
			t.Errorf("FromGo(%v) = %v, want a refusal of the cycle through no struct", rt, err)
		}
	}
}
