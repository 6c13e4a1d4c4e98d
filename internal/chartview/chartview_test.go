package chartview

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/internal/tsclienttest"
)

// nodeModules is .ci/js/node_modules, where .ci/setup installs ext-apps.
func nodeModules(t *testing.T) string {
	t.Helper()
	tsclienttest.Need(t, "@modelcontextprotocol/ext-apps")
	return tsclienttest.Modules()
}

// TestUpToDate fails when view.html is not what view.js and
// view.tmpl.html give with the pinned ext-apps.
func TestUpToDate(t *testing.T) {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Build(dir, nodeModules(t))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != HTML {
		t.Fatal("view.html is out of date: run go run ./internal/cmd/chartview from the repository root and commit it")
	}
}

// TestSelfContained: the view names no external script, stylesheet or
// origin to load.
func TestSelfContained(t *testing.T) {
	for _, bad := range []string{"<script src", "<link", "@import", "src=\"http"} {
		if strings.Contains(HTML, bad) {
			t.Errorf("view.html contains %q: the view must load nothing", bad)
		}
	}
	if !strings.Contains(HTML, "ui/initialize") {
		t.Error("view.html does not hold the ext-apps App (no ui/initialize)")
	}
}
