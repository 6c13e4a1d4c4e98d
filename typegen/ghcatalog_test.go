package typegen_test

import (
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/internal/testdata/ghcatalog"
	"github.com/brakinglab/codemode-go/typegen"
)

// TestLargeCatalogCompiles compiles the full declarations of the
// generated 300-operation GitHub catalog under tsc --strict, with a
// program using nested objects, enums, optional fields, arrays of objects
// and maps, and rejects a program with a wrong enum value.
func TestLargeCatalogCompiles(t *testing.T) {
	tsc := tscCommand(t)
	cat, err := ghcatalog.New()
	if err != nil {
		t.Fatal(err)
	}
	decls, err := typegen.Generate(cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	correct := wrap(`
  const issue = await github.issuesCreate({ owner: "o", repo: "r", title: "Crash on start", labels: ["bug"] });
  const dry = await github.issuesCreate({ owner: "o", repo: "r", title: "x", _validateOnly: true });
  const ok: true = dry.valid;
  const login: string | undefined = issue.user?.login;
  const issues = await github.issuesListForRepo({ owner: "o", repo: "r", state: "open", per_page: 10 });
  const titles: string[] = issues.map((i) => i.title ?? "");
  const rate = await github.rateLimitGet();
  const core: number | undefined = rate.resources?.core?.remaining;
  const pr = await github.pullsMerge({ owner: "o", repo: "r", pull_number: 1, merge_method: "squash" });
  return { login, titles, core, ok, merged: pr.merged };`)
	wrong := wrap(`
  return github.issuesListForRepo({ owner: "o", repo: "r", state: "maybe" });`)
	diags, inDecls := compileAll(t, tsc, decls, []string{correct, wrong})
	if inDecls != "" {
		t.Fatalf("diagnostics in the declarations:\n%s", inDecls)
	}
	if diags[0] != "" {
		t.Errorf("the correct program does not compile:\n%s", diags[0])
	}
	if !strings.Contains(diags[1], `"maybe"`) {
		t.Errorf("the wrong enum value was not rejected:\n%s", diags[1])
	}
}

// TestGHCatalogOperations: the generated catalog registers every
// operation it counts.
func TestGHCatalogOperations(t *testing.T) {
	c, err := ghcatalog.New()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Functions()); n != ghcatalog.Operations || n < 300 {
		t.Fatalf("%d functions, want %d (at least 300)", n, ghcatalog.Operations)
	}
}
