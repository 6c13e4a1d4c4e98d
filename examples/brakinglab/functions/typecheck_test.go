package functions_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/brakinglab/codemode-go/internal/tsclienttest"
	"github.com/brakinglab/codemode-go/typegen"
)

// TestScriptsTypecheck compiles the seed coaching script
// (../testdata/coaching.ts, a verbatim copy of the seed script) and the README's example scripts
// (testdata/prompts) against the declarations typegen makes from this
// catalog, with tsc --strict.
func TestScriptsTypecheck(t *testing.T) {
	tsclienttest.Need(t, "typescript")
	node, tsc := tsclienttest.Node(), filepath.Join(tsclienttest.Modules(), "typescript", "bin", "tsc")
	dts, err := typegen.Generate(cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	scripts, _ := filepath.Glob("testdata/prompts/*.ts")
	scripts = append(scripts, "../testdata/coaching.ts")
	dir := t.TempDir()
	files := map[string]string{"brakinglab.d.ts": dts + "\ndeclare const console: { log(...args: unknown[]): void };\n"}
	for i, path := range scripts {
		script, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// Each script is the body of an async function, as execute_code runs it.
		files[fmt.Sprintf("script%d.ts", i)] = fmt.Sprintf("export {};\nasync function main%d() {\n%s\n}\n", i, script)
	}
	args := []string{tsc, "--noEmit", "--strict", "--target", "es2020", "--lib", "es2020"}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, filepath.Join(dir, name))
	}
	cmd := exec.Command(node, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}
