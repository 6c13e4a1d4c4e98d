package traceparent

import "testing"

func TestTraceID(t *testing.T) {
	const id = "4bf92f3577b34da6a3ce929d0e0e4736"
	for _, c := range []struct {
		tp   string
		want string
	}{
		{"00-" + id + "-00f067aa0ba902b7-01", id},
		{"01-" + id + "-00f067aa0ba902b7-01-future", id}, // later versions may add fields
		{"00-" + id + "-00f067aa0ba902b7-01-extra", ""},  // version 00 has four
		{"ff-" + id + "-00f067aa0ba902b7-01", ""},
		{"00-00000000000000000000000000000000-00f067aa0ba902b7-01", ""},
		{"00-" + id + "-0000000000000000-01", ""},
		{"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", ""}, // upper case
		{"00-" + id[:31] + "-00f067aa0ba902b7-01", ""},
		{"00-" + id + "-00f067aa0ba902b7", ""},
		{"", ""},
		{"garbage", ""},
	} {
		got, ok := TraceID(c.tp)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("TraceID(%q) = %q, %v; want %q", c.tp, got, ok, c.want)
		}
	}
}
