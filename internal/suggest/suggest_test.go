package suggest

import "testing"

func TestClosest(t *testing.T) {
	names := []string{"getSessions", "getSession", "getLaps", "saveCoachingReport"}
	tests := []struct{ in, want string }{
		{"getSesions", "getSessions"},
		{"getLapz", "getLaps"},
		{"getSessionz", "getSession"}, // one edit from getSession and from getSessions: the tie goes to the name sorting first
		{"getsessions", "getSessions"},
		{"getLap", "getLaps"},
		{"saveCoachReport", "saveCoachingReport"},
		{"deleteEverything", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Closest(tt.in, names); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := Closest("x", nil); got != "" {
		t.Errorf("Closest with no names = %q", got)
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
		{"getLaps", "getLaps", 0},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
