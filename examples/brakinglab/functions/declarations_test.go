package functions_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/typegen"
)

// TestArgumentsOptionalOnlyWhenEmptyCallSucceeds checks the declarations
// against the catalog: a function is declared args? exactly when calling
// it with {} passes validation (generateRaceStrategy needs raceEventId or
// trackName, so it is declared with required args).
func TestArgumentsOptionalOnlyWhenEmptyCallSucceeds(t *testing.T) {
	dts, err := typegen.Generate(cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dts, "const generateRaceStrategy: Write<") {
		t.Error("generateRaceStrategy is not declared with required args")
	}
	for _, f := range cat.Functions() {
		optional := strings.Contains(dts, "function "+f.Name+"(args?:") || strings.Contains(dts, "const "+f.Name+": WriteOpt<")
		// _validateOnly runs decoding and validation only, for every tier
		// that has it; READ-ONLY functions are checked by decoding through
		// their own validation issue.
		args := `{}`
		if f.Tier.Strict() {
			args = `{"_validateOnly":true}`
		}
		_, err := call(demoU, f.Name, json.RawMessage(args))
		var ve *catalog.ValidationError
		passes := !errors.As(err, &ve)
		if f.Tier.Strict() && passes != optional {
			t.Errorf("%s: declared optional = %v, but {} passes validation = %v (%v)", f.Name, optional, passes, err)
		}
		if !f.Tier.Strict() && !passes && optional {
			t.Errorf("%s: declared args? but {} fails validation: %v", f.Name, err)
		}
	}
}
