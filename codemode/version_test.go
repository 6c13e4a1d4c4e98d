package codemode_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/brakinglab/codemode-go/codemode"
)

// TestVersionInChangelog: codemode.Version is the newest release in
// CHANGELOG.md, which keeps an Unreleased section above it.
func TestVersionInChangelog(t *testing.T) {
	b, err := os.ReadFile("../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	heads := regexp.MustCompile(`(?m)^## \[([^\]]+)\]`).FindAllSubmatch(b, 2)
	if len(heads) < 2 || string(heads[0][1]) != "Unreleased" {
		t.Fatalf("CHANGELOG.md must start with ## [Unreleased] then the newest release; headings %q", heads)
	}
	if got := string(heads[1][1]); got != codemode.Version {
		t.Fatalf("newest release in CHANGELOG.md is %s, codemode.Version is %s", got, codemode.Version)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(codemode.Version) {
		t.Fatalf("Version %q is not MAJOR.MINOR.PATCH", codemode.Version)
	}
}
