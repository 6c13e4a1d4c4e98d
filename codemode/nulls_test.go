package codemode

import "testing"

func TestStripNulls(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`null`, `null`},
		{`1`, `1`},
		{`"null"`, `"null"`},
		{`{"a":null}`, `{}`},
		{`{"z":1,"a":null,"m":"<b>"}`, `{"z":1,"m":"<b>"}`},
		{`[null,{"a":null,"b":[null]}]`, `[null,{"b":[null]}]`},
		{`{"n":12345678901234567890,"f":1.50}`, `{"n":12345678901234567890,"f":1.50}`},
		{`{"a":`, `{"a":`}, // malformed: returned as is
	} {
		if got := string(stripNulls([]byte(tt.in))); got != tt.want {
			t.Errorf("stripNulls(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestIssuePath(t *testing.T) {
	for _, tt := range []struct {
		path []any
		want string
	}{
		{nil, "(arguments)"},
		{[]any{"a"}, "a"},
		{[]any{"corners", float64(0), "verdict"}, "corners[0].verdict"},
		{[]any{"m", "k"}, "m.k"},
	} {
		if got := issuePath(tt.path); got != tt.want {
			t.Errorf("issuePath(%v) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
