package validate

import (
	"testing"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// TestTableAndChecksAgree holds the rules this package checks to the
// table the library words and declares them from: a rule in one only
// would be accepted but never explained, or explained but refused.
func TestTableAndChecksAgree(t *testing.T) {
	for _, tag := range jsontype.RuleTags() {
		if _, ok := funcs[tag]; !ok && tag != "omitempty" {
			t.Errorf("rule %s is in jsontype's table but has no check", tag)
		}
	}
	for tag := range funcs {
		if _, ok := jsontype.LookupRule(tag); !ok {
			t.Errorf("rule %s has a check but is not in jsontype's table", tag)
		}
	}
}
