package sandbox

import "testing"

// A result reads the same in both modes, byte for byte: the worker's
// answer once escaped <, > and & ("Promise\u003cT\u003e") where the same
// value in process did not, so the model saw two texts for one value.
func TestResultTextSameInBothModes(t *testing.T) {
	const want = `{"decl":"function f(): Promise<Item[]>; // a & b","n":1}`
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		res := mustRun(t, sb, `return { decl: "function f(): Promise<Item[]>; // a & b", n: 1 }`, nil)
		if string(res.Value) != want {
			t.Fatalf("result %s, want %s", res.Value, want)
		}
	})
}
