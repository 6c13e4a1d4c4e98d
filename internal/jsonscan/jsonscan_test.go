package jsonscan

import (
	"strings"
	"testing"
)

func TestDepth(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{`1`, 0},
		{`"[[{"`, 0},
		{`[]`, 1},
		{`{"a":[1,{"b":"]\"}["}]}`, 3},
		{strings.Repeat("[", 40) + strings.Repeat("]", 40), 40},
		{`["\\", [["x"]]]`, 3},
	} {
		if got := Depth([]byte(tt.in)); got != tt.want {
			t.Errorf("Depth(%s) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestStructural(t *testing.T) {
	var got strings.Builder
	Structural([]byte(`{"k,:":[1,"]"],"z":{}}`), func(c byte, depth int) {
		got.WriteByte(c)
		got.WriteByte('0' + byte(depth))
	})
	if want := `{1:1[2,2]1,1:1{2}1}0`; got.String() != want {
		t.Fatalf("got %s, want %s", got.String(), want)
	}
}
