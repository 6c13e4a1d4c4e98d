package functions_test

import (
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

// TestDescriptionStatesSharedRulesOnce checks that the full execute_code
// description declares every function while saying the tier rules, the
// dry-run overload and the scopes once, not once per function.
func TestDescriptionStatesSharedRulesOnce(t *testing.T) {
	cm, err := codemode.New(cat, &codemode.Options{SandboxMode: sandbox.ModeInProcess, Discovery: codemode.DiscoveryFull})
	if err != nil {
		t.Fatal(err)
	}
	defer cm.Close()
	d := cm.ToolDescription()
	t.Logf("full description: %d characters", len(d))
	for _, f := range cat.Functions() {
		if !strings.Contains(d, " "+f.Name+"(args") && !strings.Contains(d, "const "+f.Name+": Write") {
			t.Errorf("the description does not declare %s", f.Name)
		}
	}
	for _, s := range []string{"unknown argument fields are rejected", "require scope brakinglab:write"} {
		if n := strings.Count(d, s); n != 1 {
			t.Errorf("%q appears %d times, want once", s, n)
		}
	}
	// 36,037 characters before the shared rules were stated once.
	if len(d) > 26000 {
		t.Errorf("description is %d characters, want at most 26,000", len(d))
	}
}

