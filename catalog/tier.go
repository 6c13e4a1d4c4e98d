package catalog

import "fmt"

// Tier says what a function may do, and so how strictly its arguments are
// decoded and whether it accepts dry runs.
type Tier int

const (
	// ReadOnly functions only read. Their arguments are decoded flexibly:
	// unknown fields are ignored.
	ReadOnly Tier = iota
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
	return fmt.Sprintf("Tier(%d)", int(t))
}

// Strict reports whether arguments are decoded strictly (unknown fields
// rejected) and dry runs with "_validateOnly" are accepted.
func (t Tier) Strict() bool { return t == Mutating || t == Creative }

func (t Tier) valid() bool { return t >= ReadOnly && t <= Creative }
