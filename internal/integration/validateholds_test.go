package integration

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-playground/validator/v10"

	"github.com/brakinglab/codemode-go/internal/validate"
)

// oldHolds is how the catalog ran a schema-built function's rule before
// it had its own checker (catalog/rules.go's holds at commit 990da59):
// validator/v10's Var on the parsed JSON value, numbers as float64, a
// panic taken as a pass (the schema validator decides there).
func oldHolds(val *validator.Validate, tag, param string, v any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = true
		}
	}()
	if param != "" {
		tag += "=" + param
	}
	return val.Var(v, tag) == nil
}

// TestValidateHoldsAgainstValidator checks the rules schema-built
// functions carry (minLength as min, format as email…) on parsed JSON
// values: validate.Holds must agree with validator/v10's Var.
func TestValidateHoldsAgainstValidator(t *testing.T) {
	val := newValidator()
	jsonValues := func(r *rand.Rand) any {
		switch r.IntN(5) {
		case 0:
			return pick(r, strs)
		case 1:
			return pick(r, []float64{0, 1, 1.5, 2, 3, -1, 10, 300})
		case 2:
			return r.IntN(2) == 0
		case 3:
			out := []any{}
			for range r.IntN(4) {
				out = append(out, pick(r, []any{"a", "b", 1.0, 2.0, true}))
			}
			return out
		}
		out := map[string]any{}
		for range r.IntN(3) {
			out[pick(r, []string{"a", "b", "c"})] = 1.0
		}
		return out
	}
	compared := 0
	for _, seed := range seeds(t, *diffCases) {
		r := rand.New(rand.NewPCG(seed, 3))
		rule := randomRule(r)
		if strings.HasPrefix(rule, "required") {
			continue // presence: stated by the node's Required, never a node rule
		}
		tag, param, _ := strings.Cut(rule, "=")
		if strings.ContainsAny(param, "|,") || strings.Contains(param, "0x2C") || strings.Contains(param, "0x7C") {
			continue // the reference would read these as tag syntax; schema rules' parameters are numbers
		}
		for range 6 {
			v := jsonValues(r)
			compared++
			if got, want := validate.Holds(tag, param, v), oldHolds(val, tag, param, v); got != want {
				t.Errorf("seed %d: %s on %#v: Holds = %v, validator/v10 = %v", seed, rule, v, got, want)
			}
		}
	}
	t.Logf("%d rule/value pairs compared", compared)
}
