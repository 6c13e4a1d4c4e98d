package typegen_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/golden"
	"github.com/brakinglab/codemode-go/typegen"
)

// mcpTool is a tool as tools/list returns it.
type mcpTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  struct {
		ReadOnly    *bool `json:"readOnlyHint"`
		Destructive *bool `json:"destructiveHint"`
	} `json:"annotations"`
}

// corpus lists the servers whose real tool schemas the tests read: the
// npm reference servers' tools/list answers, and github-mcp-server's
// per-tool snapshots (see testdata/schemas/README.md).
func corpus(t *testing.T) map[string][]mcpTool {
	t.Helper()
	out := map[string][]mcpTool{}
	for _, server := range []string{"memory", "filesystem", "everything", "constructs"} {
		b, err := os.ReadFile(filepath.Join("testdata", "schemas", server+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var list struct{ Tools []mcpTool }
		if err := json.Unmarshal(b, &list); err != nil {
			t.Fatal(err)
		}
		out[server] = list.Tools
	}
	files, err := filepath.Glob(filepath.Join("testdata", "schemas", "github", "*.json"))
	if err != nil || len(files) < 100 {
		t.Fatalf("github snapshots: %d files, %v", len(files), err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tool mcpTool
		if err := json.Unmarshal(b, &tool); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out["github"] = append(out["github"], tool)
	}
	return out
}

// jsName converts a tool name such as get-tiny-image to getTinyImage.
func jsName(s string) string {
	var b strings.Builder
	up := false
	for _, r := range s {
		if r == '-' || r == '.' || r == ' ' {
			up = b.Len() > 0
			continue
		}
		if up {
			r, up = unicode.ToUpper(r), false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// corpusCatalog registers every tool of one server as a schema function,
// its tier from its annotations.
func corpusCatalog(t *testing.T, ns string, tools []mcpTool) *catalog.Catalog {
	t.Helper()
	c, err := catalog.New(ns, &catalog.Options{AllowAnonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		tier := catalog.Creative
		switch {
		case tool.Annotations.ReadOnly != nil && *tool.Annotations.ReadOnly:
			tier = catalog.ReadOnly
		case tool.Annotations.Destructive != nil && *tool.Annotations.Destructive:
			tier = catalog.Mutating
		}
		err := catalog.AddSchema(c, catalog.SchemaFunc{
			Name: jsName(tool.Name), Description: tool.Description, Tier: tier,
			InputSchema: tool.InputSchema, OutputSchema: tool.OutputSchema,
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil },
		})
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
	}
	return c
}

// TestCorpusGolden renders the declarations of each server's real tool
// schemas, checks them against golden files and checks that the output
// is deterministic.
func TestCorpusGolden(t *testing.T) {
	for server, tools := range corpus(t) {
		t.Run(server, func(t *testing.T) {
			got, err := typegen.Generate(corpusCatalog(t, server, tools), nil)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "schemas", server+".d.ts.golden"), []byte(got))
			for range 3 {
				again, err := typegen.Generate(corpusCatalog(t, server, tools), nil)
				if err != nil || again != got {
					t.Fatalf("output is not deterministic (err %v)", err)
				}
			}
		})
	}
}

// TestCorpusCompiles type-checks every corpus server's declarations under
// tsc --strict.
func TestCorpusCompiles(t *testing.T) {
	tsc := tscCommand(t)
	all := corpus(t)
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	slices.Sort(names)
	var decls strings.Builder
	for _, server := range names {
		d, err := typegen.Generate(corpusCatalog(t, server, all[server]), nil)
		if err != nil {
			t.Fatal(err)
		}
		decls.WriteString(d)
	}
	prog := wrap(`
  const g = await memory.read_graph();
  const names: string[] = g.entities.map((e) => e.name);
  await memory.create_entities({ entities: [{ name: "a", entityType: "t", observations: [] }] });
  const f = await filesystem.read_text_file({ path: "/x", head: 3 });
  const issue = await github.issue_read({ method: "get", owner: "o", repo: "r", issue_number: 1 });
  const w = await everything.getStructuredContent({ location: "Chicago" });
  const t: number = w.temperature;
  const tree = await constructs.refs2020({ root: { label: "r", children: [{ label: "c" }] } });
  await constructs.scalars({ kind: "note", name: null, level: 2, at: "2026-01-01T00:00:00Z" });
  const s = await constructs.shapes({ at: [1, 2], span: ["a", 1, 2], id: 3, target: { url: "u" } });
  const next: boolean | undefined = s.next?.ok;
  return { names, f, issue, t, tree, next };`)
	wrongs := []string{
		wrap(`return everything.getStructuredContent({ location: "Paris" });`),
		wrap(`return constructs.scalars({ kind: "other" });`),
		wrap(`return constructs.shapes({ at: [1, 2, 3] });`),
		wrap(`return memory.create_entities({ entities: [{ name: "a" }] });`),
		wrap(`const g = await memory.read_graph(); return g.nodes;`),
	}
	diags, inDecls := compileAll(t, tsc, decls.String(), append([]string{prog}, wrongs...))
	if inDecls != "" {
		t.Fatalf("diagnostics in the declarations:\n%s", inDecls)
	}
	if diags[0] != "" {
		t.Errorf("the program does not compile:\n%s", diags[0])
	}
	for i, d := range diags[1:] {
		if d == "" {
			t.Errorf("wrong program %d compiles:\n%s", i+1, wrongs[i])
		}
	}
}

// BenchmarkCorpusRegister measures registering every tool of the GitHub
// snapshots as schema functions and generating their declarations, what
// a catalogue that follows an upstream server redoes on list_changed.
func BenchmarkCorpusRegister(b *testing.B) {
	t := &testing.T{}
	tools := corpus(t)["github"]
	b.ReportAllocs()
	for b.Loop() {
		c, _ := catalog.New("github", nil)
		for _, tool := range tools {
			if err := catalog.AddSchema(c, catalog.SchemaFunc{Name: jsName(tool.Name), Tier: catalog.Creative,
				InputSchema: tool.InputSchema, OutputSchema: tool.OutputSchema,
				Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }}); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := typegen.Generate(c, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(tools)), "tools")
}
