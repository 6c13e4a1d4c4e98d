package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/internal/tsclienttest"
)

// tasksAPI is a real REST service on loopback serving testdata/tasks.yaml;
// it wants the key the configuration takes from the environment.
func tasksAPI(t *testing.T) (url string, deletes func() int) {
	t.Helper()
	var (
		mu      sync.Mutex
		tasks   []map[string]any
		deleted int
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "k-123" {
			w.WriteHeader(401)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == "GET" && r.URL.Path == "/v1/tasks":
			json.NewEncoder(w).Encode(tasks)
		case r.Method == "POST" && r.URL.Path == "/v1/tasks":
			var task map[string]any
			json.NewDecoder(r.Body).Decode(&task)
			task["id"] = fmt.Sprint(len(tasks) + 1)
			tasks = append(tasks, task)
			w.WriteHeader(201)
			json.NewEncoder(w).Encode(task)
		case r.Method == "DELETE":
			deleted++
			w.WriteHeader(204)
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", func() int { mu.Lock(); defer mu.Unlock(); return deleted }
}

// One script joins an MCP server and an HTTP API: it creates a task
// through the API (an "openapi" entry whose key comes from the
// environment) and records it in server-memory. Deleting a task asks the
// user first; declined, the API never sees it.
func TestOpenAPIBesideMCPServer(t *testing.T) {
	memory := tsclienttest.ServerScript(t, "server-memory")
	api, deletes := tasksAPI(t)
	t.Setenv("TASKS_KEY", "k-123")
	dir := t.TempDir()
	spec, err := os.ReadFile("testdata/tasks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tasks.yaml"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "servers.json")
	b, _ := json.Marshal(map[string]any{
		"mcpServers": map[string]any{"memory": map[string]any{"command": tsclienttest.Node(), "args": []string{memory}, "env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}}},
		"openapi":    map[string]any{"tasks-api": map[string]any{"spec": "tasks.yaml", "baseUrl": api, "headers": map[string]string{"X-Api-Key": "${TASKS_KEY}"}, "namespace": "tasks"}},
	})
	if err := os.WriteFile(config, b, 0o644); err != nil {
		t.Fatal(err)
	}
	user := &mcptest.Asker{Action: "decline"}
	cs := connect(t, config, user.Options())
	res := call(t, cs, `const task = await tasks.createTask({ body: { title: "brake later into turn 3" } });
await memory.create_entities({ entities: [{ name: "task " + task.id, entityType: "task", observations: [task.title] }] });
const open = await tasks.listTasks();
const graph = await memory.read_graph({});
return { open: open.length, remembered: graph.entities.map(e => e.name + ": " + e.observations[0]) };`)
	if got := string(res); got != `{"open":1,"remembered":["task 1: brake later into turn 3"]}` {
		t.Fatalf("joined result %s", got)
	}
	out, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `await tasks.deleteTask({ id: "1" }); return "deleted"`}})
	if err != nil {
		t.Fatal(err)
	}
	if !out.IsError || !strings.Contains(textOf(out), "APPROVAL_DECLINED") || deletes() != 0 {
		t.Fatalf("delete without approval: %s; %d deletes reached the API", textOf(out), deletes())
	}
	if asked := user.Asked(); len(asked) != 1 || !strings.Contains(asked[0], "tasks.deleteTask") {
		t.Fatalf("approval asked %q", asked)
	}
}

func TestParseOpenAPIConfig(t *testing.T) {
	t.Setenv("API_TOKEN", "s3cret")
	ups, err := ParseConfig([]byte(`{"mcpServers": {"memory": {"command": "x"}},
	  "openapi": {"github-api": {"spec": "https://example.com/api.json", "baseUrl": "https://api.github.com", "headers": {"Authorization": "Bearer ${API_TOKEN}"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(ups) != 2 || ups[1].OpenAPI == nil || ups[1].Namespace != "github_api" || ups[1].OpenAPI.Headers["Authorization"] != "Bearer s3cret" {
		t.Fatalf("%+v", ups)
	}
	for _, tc := range []struct{ config, want string }{
		{`{"openapi": {"a": {"baseUrl": "http://h"}}}`, `openapi "a" has no spec`},
		{`{"openapi": {"a": {"spec": "a.yaml"}}}`, `openapi "a" has no baseUrl`},
		{`{"openapi": {"a": {"spec": "a.yaml", "baseUrl": "http://h", "headers": {"X-Key": "k\r\nHost: evil"}}}}`, `header "X-Key": a name or value with a line break`},
		{`{"openapi": {"a": {"spec": "a.yaml", "baseUrl": "http://h", "namespace": "my-api"}}}`, `namespace "my-api" is not an identifier`},
		{`{"mcpServers": {"gh": {"command": "x"}}, "openapi": {"a": {"spec": "a.yaml", "baseUrl": "http://h", "namespace": "gh"}}}`, "both become the namespace gh"},
	} {
		_, err := ParseConfig([]byte(tc.config))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.config, err, tc.want)
		}
	}
}

// A spec given by URL is fetched once at start; a bad one stops the
// gateway with an error naming the entry.
func TestOpenAPISpecFromURL(t *testing.T) {
	api, _ := tasksAPI(t)
	spec, err := os.ReadFile("testdata/tasks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	specs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/tasks.yaml" {
			http.NotFound(w, r)
			return
		}
		w.Write(spec)
	}))
	t.Cleanup(specs.Close)
	write := func(specURL string) string {
		config := filepath.Join(t.TempDir(), "servers.json")
		b, _ := json.Marshal(map[string]any{"openapi": map[string]any{"tasks": map[string]any{"spec": specURL, "baseUrl": api, "headers": map[string]string{"X-Api-Key": "k-123"}}}})
		if err := os.WriteFile(config, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return config
	}
	cs := connect(t, write(specs.URL+"/tasks.yaml"), nil)
	if got := string(call(t, cs, `await tasks.createTask({ body: { title: "t" } }); return (await tasks.listTasks()).length`)); got != "1" {
		t.Fatalf("tasks: %s", got)
	}
	ups, err := ReadConfig(write(specs.URL + "/missing.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(t.Context(), ups, &codemode.Options{Principal: &catalog.Principal{Subject: "dev"}, Logger: quietLog()}, quietLog())
	if err == nil || !strings.Contains(err.Error(), "openapi tasks: reading the spec") || !strings.Contains(err.Error(), "HTTP 404") {
		t.Fatalf("got %v", err)
	}
}
