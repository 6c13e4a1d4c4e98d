package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/golden"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/sandbox"
)

// connectMode is connect with the sandbox in mode.
func connectMode(t *testing.T, config string, mode sandbox.Mode) *mcp.ClientSession {
	t.Helper()
	ups, err := ReadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	opts := &codemode.Options{Principal: &catalog.Principal{Subject: "dev"}, Logger: quietLog(), Audit: codemode.AuditOptions{Sink: codemode.NoAudit}}
	opts.Sandbox.Mode = mode
	g, err := Open(t.Context(), ups, opts, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	cs := mcptest.ConnectMemory(t, t.Context(), g.Server.MCPServer(), nil)
	return cs
}

// TestResultContract runs issue 41's misreadings of results of tools
// known only by their schemas (and of codemode.describe, search and
// chart), against the real server-filesystem and
// server-memory behind the gateway, in both sandbox modes: each reply
// names the call, its line, its declared result and the fix, is the same
// in both modes, and is kept as a golden file (the fixture's directory
// shown as /notes).
func TestResultContract(t *testing.T) {
	cases := []struct{ name, code, want string }{
		{"missing-method", "const text = await files.read_text_file({ path: NOTE });\nreturn text.split(\" \");",
			"text is the result of files.read_text_file (line 1), declared `{ content: string }`: an object with member content, which has no member split (read at line 2): use text.content, the string in it, e.g. text.content.split(…)."},
		{"field-of-string", "const text = await files.read_text_file({ path: NOTE });\nreturn text.content.lines.length;",
			"text.content is result.content, part of the result of files.read_text_file (line 1), declared `{ content: string }`: a string, which has no member lines (read at line 2): use text.content itself."},
		{"array-method-on-object", "const graph = await memory.read_graph({});\nreturn graph.filter((e: any) => e.entityType === \"file\");",
			"graph is the result of memory.read_graph (line 1), declared `{ entities: { entityType: string; name: string; observations: string[] }[]; relations: { from: string; relationType: string; to: string }[] }`: an object with members entities, relations, which has no member filter (read at line 2): use graph.entities, the array in it, e.g. graph.entities.filter(…)."},
		{"field-of-array", "const graph = await memory.read_graph({});\nreturn graph.entities.name.toUpperCase();",
			"graph.entities is result.entities, part of the result of memory.read_graph (line 1)"},
		{"json-text", "const tree = await files.directory_tree({ path: DIR });\nreturn tree.content.filter((e: any) => e.type === \"file\");",
			"tree.content is result.content, part of the result of files.directory_tree (line 1), declared `{ content: string }`: a string of JSON text, which has no member filter (read at line 2): parse it first, JSON.parse(tree.content).filter(…)."},
		{"describe-as-object", "const d = await codemode.describe([\"files.read_text_file\"]);\nreturn d.args.map((a: any) => a.name);",
			"d is the result of codemode.describe (line 1), declared `string`: a string, which has no member args (read at line 2): use d itself."},
		{"search-as-one", "const hits = await codemode.search(\"read a file\");\nreturn hits.name.toUpperCase();",
			"hits is the result of codemode.search (line 1), declared `{ name: string; tier: string; summary: string }[]`: an array, which has no member name (read at line 2). Pick an element first, e.g. hits[0].name"},
		{"chart-as-object", "const c = await codemode.chart({ title: \"Lines\", series: [{ name: \"words\", x: [1, 2], y: [4, 5] }] });\nreturn c.uri.length;",
			"c is the result of codemode.chart (line 1), declared `string`: a string, which has no member uri (read at line 2): use c itself."},
		{"passed-whole", "const text = await files.read_text_file({ path: NOTE });\nawait memory.create_entities({ entities: [{ name: \"note\", entityType: \"file\", observations: [text] }] });\nreturn \"stored\";",
			"in the arguments to memory.create_entities, args.entities[0].observations[0] is the result of files.read_text_file (line 1), declared `{ content: string }`, an object, passed whole: pass the member you meant (.content)."},
		{"object-string", "const text = await files.read_text_file({ path: NOTE });\nawait memory.create_entities({ entities: [{ name: \"note\", entityType: \"file\", observations: [String(text)] }] });\nreturn \"stored\";",
			"in the arguments to memory.create_entities, args.entities[0].observations[0] holds \"[object Object]\": an object was turned into a string (String(x), `${x}` or x + \"\"); the object is the result of files.read_text_file (line 1), declared `{ content: string }`. Pass the member you meant (.content)"},
	}
	texts := map[string]string{}
	for _, mode := range []sandbox.Mode{sandbox.ModeInProcess, sandbox.ModeWorker} {
		t.Run(mode.String(), func(t *testing.T) {
			f := newFixture(t)
			cs := connectMode(t, f.config, mode)
			for _, tc := range cases {
				code := strings.NewReplacer("NOTE", `"`+f.note+`"`, "DIR", `"`+f.dir+`"`).Replace(tc.code)
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": code}})
				if err != nil {
					t.Fatal(err)
				}
				txt := strings.ReplaceAll(textOf(res), f.dir, "/notes")
				if !strings.Contains(txt, tc.want) {
					t.Errorf("%s: the reply lacks %q:\n%s", tc.name, tc.want, txt)
				}
				if mode == sandbox.ModeInProcess {
					texts[tc.name] = txt
					golden.Check(t, filepath.Join("testdata", "contract", tc.name+".golden"), []byte(txt+"\n"))
				} else if txt != texts[tc.name] {
					t.Errorf("%s: worker mode replies\n%s\nin process:\n%s", tc.name, txt, texts[tc.name])
				}
			}
		})
	}
}
