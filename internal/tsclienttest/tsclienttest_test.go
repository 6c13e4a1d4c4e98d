package tsclienttest

import (
	"path/filepath"
	"testing"
)

// Modules finds .ci/js/node_modules from a package two levels below the
// repository's root, as it does from any other.
func TestModules(t *testing.T) {
	want, err := filepath.Abs(filepath.Join("..", "..", ".ci", "js", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if got := Modules(); got != want {
		t.Fatalf("Modules() = %q, want %q", got, want)
	}
}
