package codemode

import "testing"

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
