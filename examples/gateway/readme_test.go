package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/readmetest"
	"github.com/brakinglab/codemode-go/internal/tsclienttest"
)

// The README's gateway script runs as written against the pinned
// server-filesystem and server-memory, its notes directory being the
// fixture's: it stores the file's text (not "[object Object]") and draws
// no warning.
func TestReadmeGatewayScript(t *testing.T) {
	var script string
	for _, b := range readmetest.Scripts(t, ".") {
		if strings.Contains(b.Code, "files.") {
			if script != "" {
				t.Fatalf("more than one gateway script on files in the README (line %d): run each here", b.Line)
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

// The README's script that joins an MCP server and an HTTP API runs as
// written: server-memory, and GitHub's pulls_list served on loopback from
// a description holding that one operation (the README's configuration
// with the base URL and spec file of the test).
func TestReadmeOpenAPIScript(t *testing.T) {
	var script string
	for _, b := range readmetest.Scripts(t, ".") {
		if strings.Contains(b.Code, "github.") {
			if script != "" {
				t.Fatalf("more than one GitHub script in the README (line %d): run each here", b.Line)
			}
			script = b.Code
		}
	}
	if script == "" {
		t.Fatal("the README has no script that joins an MCP server and an HTTP API")
	}
	old := time.Now().Add(-90 * 24 * time.Hour).UTC().Format(time.RFC3339)
	fresh := time.Now().UTC().Format(time.RFC3339)
	var gotQuery string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/repos/octocat/hello-world/pulls" {
			http.NotFound(w, r)
			return
		}
		gotQuery = r.URL.RawQuery
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `[{"number":7,"title":"Trail braking notes","updated_at":%q},{"number":8,"title":"New corner map","updated_at":%q}]`, old, fresh)
	}))
	t.Cleanup(api.Close)
	dir := t.TempDir()
	const spec = `{"openapi":"3.0.3","info":{"title":"GitHub (pulls_list only)","version":"1"},"paths":{"/repos/{owner}/{repo}/pulls":{"get":{"operationId":"pulls/list",
"parameters":[{"name":"owner","in":"path","required":true,"schema":{"type":"string"}},{"name":"repo","in":"path","required":true,"schema":{"type":"string"}},
{"name":"state","in":"query","schema":{"type":"string","enum":["open","closed","all"]}},{"name":"per_page","in":"query","schema":{"type":"integer"}}],
"responses":{"200":{"description":"the pull requests","content":{"application/json":{"schema":{"type":"array","items":{"type":"object","required":["number","title","updated_at"],
"properties":{"number":{"type":"integer"},"title":{"type":"string"},"updated_at":{"type":"string","format":"date-time"}}}}}}}}}}}}`
	if err := os.WriteFile(filepath.Join(dir, "api.github.com.json"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_TOKEN", "test-token")
	config := filepath.Join(dir, "servers.json")
	b, _ := json.Marshal(map[string]any{
		"mcpServers": map[string]any{"memory": map[string]any{"command": tsclienttest.Node(), "args": []string{tsclienttest.ServerScript(t, "server-memory")}, "env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}}},
		"openapi":    map[string]any{"github": map[string]any{"spec": "api.github.com.json", "baseUrl": api.URL, "headers": map[string]string{"Authorization": "Bearer ${GITHUB_TOKEN}"}}},
	})
	if err := os.WriteFile(config, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, config, nil)
	if got := string(call(t, cs, script)); got != "[7]" {
		t.Fatalf("the README's script returned %s, want [7] (the stale pull request)", got)
	}
	if gotQuery != "per_page=20&state=open" && gotQuery != "state=open&per_page=20" {
		t.Errorf("query %q, want state=open and per_page=20", gotQuery)
	}
	if got := string(call(t, cs, `return (await memory.read_graph({})).entities.map(e => e.name + ": " + e.observations[0])`)); got != `["PR #7: Trail braking notes"]` {
		t.Fatalf("remembered %s", got)
	}
}
