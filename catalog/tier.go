package catalog

import "fmt"

// Tier says what a function may do, and so how strictly its arguments are
// decoded and whether it accepts dry runs. Every function must name its
// tier: the zero Tier is not a tier, and [Add] refuses it, so a function
// registered without one cannot end up read-only (flexible decoding, no
// dry run, bound into execute_readonly_code) by omission.
type Tier int

const (
	// ReadOnly functions only read. Their arguments are decoded flexibly:
	// unknown fields are ignored.
	ReadOnly Tier = iota + 1
	// Mutating functions change existing data. Unknown fields are rejected
	// at every nesting level and "_validateOnly": true gives a dry run.
	Mutating
	// Creative functions create new data. They are decoded like Mutating.
	Creative
)

// String returns the tier as printed in declarations: "READ-ONLY",
// "MUTATING" or "CREATIVE".
func (t Tier) String() string {
	switch t {
	case ReadOnly:
		return "READ-ONLY"
	case Mutating:
		return "MUTATING"
	case Creative:
		return "CREATIVE"
	}
	if t == 0 {
		return "Tier(unset)"
	}
	return fmt.Sprintf("Tier(%d)", int(t))
}

// Strict reports whether arguments are decoded strictly (unknown fields
// rejected) and dry runs with "_validateOnly" are accepted.
func (t Tier) Strict() bool { return t == Mutating || t == Creative }

func (t Tier) valid() bool { return t >= ReadOnly && t <= Creative }
