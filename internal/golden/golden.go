// Package golden compares test output with files under testdata, for the
// declaration and description snapshots of typegen and codemode. Run the
// tests with -update to rewrite the files after checking a change.
package golden

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Check fails t when got differs from the file at path, or rewrites the
// file when the test binary runs with -update.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run go test -update after checking the change):\n%s", path, got)
	}
}
