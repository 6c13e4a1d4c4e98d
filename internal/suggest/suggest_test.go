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

func TestNearest(t *testing.T) {
	fields := []string{"trackName", "carName", "sessionId", "limit", "since", "id"}
	tests := []struct{ in, want string }{
		{"track", "trackName"}, // too many edits for Closest: a prefix
		{"car", "carName"},     // a prefix
		{"limt", "limit"},      // Closest still wins
		{"name", "carName"},    // a suffix of two names, equally far: the first sorted
		{"sessionIdentifier", "sessionId"},
		{"whatever", ""},
	}
	for _, tt := range tests {
		if got := Nearest(tt.in, fields); got != tt.want {
			t.Errorf("Nearest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
