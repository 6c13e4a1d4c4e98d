package mcpsource_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/brakinglab/codemode-go/internal/golden"
	"github.com/brakinglab/codemode-go/mcpsource"
	"github.com/brakinglab/codemode-go/typegen"
)

// A tool without an outputSchema is declared with what a script receives
// from its content: the reference everything server's echo (one text
// block) returns a string, get_tiny_image (text, image, text) an array of
// a string, an image object and a string. Each value validates against
// the declared output schema with a real JSON Schema validator, and the
// declarations say so (golden).
func TestContentOnlyResultsAreDeclared(t *testing.T) {
	bin, script := node(t, "server-everything")
	c := newCatalog(t, "everything")
	connect(t, c, &mcpsource.Options{Command: func() *exec.Cmd { return exec.Command(bin, script, "stdio") }})

	decl, err := typegen.Generate(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	const want = "Promise<string | ContentBlock | (string | ContentBlock)[] | null>"
	for _, n := range []string{"echo", "get_tiny_image"} {
		if d := declarationsOf(decl, n); !strings.Contains(d, want) {
			t.Errorf("declaration %q lacks %q", d, want)
		}
	}
	golden.Check(t, filepath.Join("testdata", "content-results.d.ts.golden"), []byte(declarationsOf(decl, "echo", "get_tiny_image", "ContentBlock")))

	for _, f := range c.Functions() {
		if f.Name != "echo" && f.Name != "get_tiny_image" {
			continue
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(f.OutputSchema, &s); err != nil {
			t.Fatal(err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		args := `{}`
		if f.Name == "echo" {
			args = `{"message":"hello"}`
		}
		out := mustCall(t, c, f.Name, args)
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(v); err != nil {
			t.Errorf("%s returned %s, which its declared schema refuses: %v", f.Name, out, err)
		}
		switch f.Name {
		case "echo":
			if out != `"Echo: hello"` {
				t.Errorf("echo: %s", out)
			}
		case "get_tiny_image":
			list, ok := v.([]any)
			if !ok || len(list) != 3 {
				t.Fatalf("get_tiny_image: %.200s", out)
			}
			if _, ok := list[0].(string); !ok {
				t.Errorf("first block %v, want a string", list[0])
			}
			if img, _ := list[1].(map[string]any); img["type"] != "image" || img["mimeType"] != "image/png" {
				t.Errorf("second block %.100v, want an image", list[1])
			}
		}
	}
}

// declarationsOf returns the declarations of the named functions and
// types in decl, each from its doc comment to the line that ends it.
func declarationsOf(decl string, names ...string) string {
	lines := strings.Split(decl, "\n")
	var b strings.Builder
	for i, l := range lines {
		for _, n := range names {
			t := strings.TrimSpace(l)
			if !strings.HasPrefix(t, "function "+n+"(") && !strings.HasPrefix(t, "interface "+n+" ") {
				continue
			}
			j := i
			for j > 0 && strings.HasPrefix(strings.TrimSpace(lines[j-1]), "/**") {
				j--
			}
			k := i
			for k < len(lines)-1 && !strings.HasSuffix(lines[k], ";") && !strings.HasSuffix(lines[k], "}") {
				k++
			}
			b.WriteString(strings.Join(lines[j:k+1], "\n") + "\n")
		}
	}
	return b.String()
}
