package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/readmetest"
)

// The README's gateway script runs as written against the pinned
// server-filesystem and server-memory, its notes directory being the
// fixture's: it stores the file's text (not "[object Object]") and draws
// no warning.
func TestReadmeGatewayScript(t *testing.T) {
	var script string
	for _, b := range readmetest.Scripts(t, ".") {
		if strings.Contains(b.Code, "files.") || strings.Contains(b.Code, "memory.") {
			if script != "" {
				t.Fatalf("more than one gateway script in the README (line %d): run each here", b.Line)
			}
			script = b.Code
		}
	}
	if script == "" {
		t.Fatal("the README has no gateway script")
	}
	f := newFixture(t)
	const text = "- brake later into turn 3\n- trail off the brake at Eau Rouge"
	if err := os.WriteFile(filepath.Join(f.dir, "todo.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, f.config, nil)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": strings.ReplaceAll(script, "/home/me/notes", f.dir)}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || strings.Contains(textOf(res), "Warnings") {
		t.Fatalf("the README's script:\n%s", textOf(res))
	}
	if got := string(call(t, cs, `return (await memory.read_graph({})).entities.map(e => e.observations)`)); got != `[["- brake later into turn 3\n- trail off the brake at Eau Rouge"]]` {
		t.Fatalf("stored observations %s", got)
	}
}
