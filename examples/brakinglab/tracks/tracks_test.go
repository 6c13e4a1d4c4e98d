package tracks

import (
	"errors"
	"fmt"
	"testing"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		query string
		want  string
		err   error
	}{
		{"Spa", "spa", nil},
		{"spa-francorchamps", "spa", nil},
		{"Francorchamps", "spa", nil},
		{"  MONZA ", "monza", nil},
		{"Nurburgring", "nurburgring-gp", nil},
		{"nürburgring gp", "nurburgring-gp", nil},
		{"laguna", "laguna-seca", nil},
		{"Daytona", "", ErrNoMatch},
		{"", "", ErrNoMatch},
		{"s", "", ErrAmbiguous},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got, err := Match(tt.query)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Match(%q) error = %v, want %v", tt.query, err, tt.err)
				}
				return
			}
			if err != nil || got.ID != tt.want {
				t.Fatalf("Match(%q) = %q, %v; want %q", tt.query, got.ID, err, tt.want)
			}
		})
	}
}

// TestDataConsistent checks that corners are in lap order inside the lap and
// sector boundaries are increasing.
func TestDataConsistent(t *testing.T) {
	for _, tr := range All() {
		if tr.SectorEndsM[0] >= tr.SectorEndsM[1] || tr.SectorEndsM[1] >= tr.LengthM {
			t.Errorf("%s: bad sectors %v", tr.Name, tr.SectorEndsM)
		}
		prev := 0.0
		for i, c := range tr.Corners {
			if c.Index != i || c.ApexM <= prev || c.ApexM >= tr.LengthM {
				t.Errorf("%s: corner %d %q out of order", tr.Name, i, c.Name)
			}
			prev = c.ApexM
		}
		var sum float64
		for i := range tr.Corners {
			s, e := tr.CornerBounds(i)
			sum += e - s
		}
		if sum != tr.LengthM {
			t.Errorf("%s: corner bounds cover %v m, want %v", tr.Name, sum, tr.LengthM)
		}
	}
}

func ExampleMatch() {
	t, _ := Match("spa")
	fmt.Println(t.Name, t.LengthM, t.Corners[0].Name)
	// Output: Spa-Francorchamps 7004 La Source
}
