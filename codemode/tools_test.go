package codemode_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/brakinglab/codemode-go/internal/golden"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/sandbox"
)

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), []byte(got))
}

func TestToolsList(t *testing.T) {
	ts := startServer(t, nil)
	cs := ts.connect(t, ts.token("alice", allScopes...), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != codemode.ToolName {
		t.Fatalf("tools: %+v", res.Tools)
	}
	tool := res.Tools[0]
	golden(t, "execute_code.golden", tool.Description)
	for _, want := range []string{"await", "return", "console.log", "_validateOnly", "10 s", "32 MB", "20 function calls", "10 KB", "100 KB", "CALL_LIMIT", ts.Declarations()} {
		if !strings.Contains(tool.Description, want) {
			t.Errorf("description lacks %q", want)
		}
	}
	for _, fn := range []string{"getSessions", "getWeakCorners", "getBrakingZones", "saveCoachingReport", "deleteSession"} {
		if !strings.Contains(ts.Declarations(), fn) {
			t.Errorf("declarations lack %s", fn)
		}
	}
	a := tool.Annotations
	if a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint || a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
		t.Errorf("annotations %+v: want not read-only, destructive (deleteSession is MUTATING), not idempotent, closed world", a)
	}
	t.Logf("description: %d chars, ~%d tokens", len(tool.Description), len(tool.Description)/4)

	// The declarations are also a resource.
	uri := "codemode://types/brakinglab.d.ts"
	rl, err := cs.ListResources(context.Background(), nil)
	// The declarations and the MCP Apps view of charts.
	if err != nil || len(rl.Resources) != 2 || rl.Resources[0].URI != uri || rl.Resources[1].URI != codemode.ChartViewURI {
		t.Fatalf("resources %+v, %v", rl, err)
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != ts.Declarations() {
		t.Fatalf("read resource: %+v, %v", rr, err)
	}
}

func TestAnnotationsFollowTiers(t *testing.T) {
	// Only READ-ONLY functions: the tool says so.
	cat := newTestCatalog(t)
	ro := newReadOnlyCatalog(t)
	for _, tt := range []struct {
		name                  string
		srv                   *codemode.Server
		readOnly, destructive bool
	}{
		{"mixed", mustNew(t, cat.Catalog, nil), false, true},
		{"read-only", mustNew(t, ro, nil), true, false},
	} {
		tools := listTools(t, tt.srv)
		a := tools[0].Annotations
		if a.ReadOnlyHint != tt.readOnly || *a.DestructiveHint != tt.destructive || a.IdempotentHint != tt.readOnly {
			t.Errorf("%s: annotations %+v", tt.name, a)
		}
	}
}

func TestReadOnlyTool(t *testing.T) {
	ts := startServer(t, func(o *codemode.Options) { o.ReadOnlyTool = true })
	cs := ts.connect(t, ts.token("alice", allScopes...), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) != 2 {
		t.Fatalf("tools %+v, %v", res, err)
	}
	var ro *mcp.Tool
	for _, tool := range res.Tools {
		if tool.Name == codemode.ReadOnlyToolName {
			ro = tool
		}
	}
	if ro == nil || !ro.Annotations.ReadOnlyHint || *ro.Annotations.DestructiveHint {
		t.Fatalf("read-only tool %+v", ro)
	}
	if strings.Contains(ro.Description, "deleteSession") || strings.Contains(ro.Description, "saveCoachingReport") || strings.Contains(ro.Description, "_validateOnly") {
		t.Error("read-only tool describes mutations")
	}
	golden(t, "execute_readonly_code.golden", ro.Description)
	for _, tool := range res.Tools {
		if tool.Name == codemode.ToolName && !strings.Contains(tool.Description, "prefer `execute_readonly_code`") {
			t.Error("execute_code does not point to the read-only tool")
		}
	}

	call := func(code string) *mcp.CallToolResult {
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ReadOnlyToolName, Arguments: map[string]any{"code": code}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := call(`return (await brakinglab.getSessions({})).length`); r.IsError || string(structuredOf(t, r).Result) != "5" {
		t.Fatalf("read: %s", text(r))
	}
	if r := call(`return await brakinglab.deleteSession({sessionId: "s1"})`); !r.IsError {
		t.Fatalf("mutation through the read-only tool: %s", text(r))
	}
	if ts.cat.deleted.Load() != 0 {
		t.Fatal("deleted through the read-only tool")
	}
}

// A write function called from execute_readonly_code fails with a
// TypeError that says it exists under execute_code and why it is left
// out here (its tier), not that it is not a function; describe says the
// same. In both sandbox modes: in worker mode the question travels to the
// parent. Asked through a real client over HTTP.
func TestReadOnlyToolNamesTheWriteTool(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeWorker, sandbox.ModeInProcess} {
		t.Run(mode.String(), func(t *testing.T) {
			ts := startServer(t, func(o *codemode.Options) { o.ReadOnlyTool = true; o.Sandbox.Mode = mode })
			cs := ts.connect(t, ts.token("alice", allScopes...), nil)
			r, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: codemode.ReadOnlyToolName, Arguments: map[string]any{"code": `
let described = "";
try { await codemode.describe("deleteSession"); } catch (e) { described = e.message; }
let called = "";
try { await brakinglab.deleteSession({ sessionId: "s1" }); } catch (e) { called = e.name + ": " + e.message; }
return { described, called };`}})
			if err != nil {
				t.Fatal(err)
			}
			const want = "brakinglab.deleteSession is not available in execute_readonly_code because it writes (tier MUTATING); call it from execute_code."
			var got struct{ Described, Called string }
			if r.IsError {
				t.Fatalf("%s", text(r))
			}
			if err := json.Unmarshal(structuredOf(t, r).Result, &got); err != nil {
				t.Fatal(err)
			}
			if got.Called != "TypeError: "+want {
				t.Errorf("call: %q\nwant %q", got.Called, "TypeError: "+want)
			}
			if got.Described != "codemode.describe: "+want {
				t.Errorf("describe: %q\nwant %q", got.Described, "codemode.describe: "+want)
			}
			// Uncaught, it is the execution's error; a name the server does
			// not have at all is still unknown.
			r, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: codemode.ReadOnlyToolName, Arguments: map[string]any{"code": `return await brakinglab.deleteSession({ sessionId: "s1" })`}})
			if err != nil {
				t.Fatal(err)
			}
			if !r.IsError || !strings.Contains(text(r), want) || ts.cat.deleted.Load() != 0 {
				t.Fatalf("uncaught: %s (deleted %d)", text(r), ts.cat.deleted.Load())
			}
			r, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: codemode.ReadOnlyToolName, Arguments: map[string]any{"code": `return await brakinglab.dropEverything({})`}})
			if err != nil {
				t.Fatal(err)
			}
			if !r.IsError || !strings.Contains(text(r), "brakinglab.dropEverything is not a function.") || strings.Contains(text(r), "execute_code") {
				t.Fatalf("unknown name: %s", text(r))
			}
		})
	}
}

func mustNew(t *testing.T, cat interface{ Namespace() string }, opts *codemode.Options) *codemode.Server {
	t.Helper()
	return newServer(t, cat, opts)
}

// listTools lists srv's tools over in-memory transports.
func listTools(t *testing.T, srv *codemode.Server) []*mcp.Tool {
	t.Helper()
	cs := mcptest.ConnectMemory(t, context.Background(), srv.MCPServer(), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// A host that builds its own go-sdk server adds the code tools to it.
func TestAddToHostServer(t *testing.T) {
	srv := newServer(t, newTestCatalog(t), &codemode.Options{ReadOnlyTool: true})
	host := mcp.NewServer(&mcp.Implementation{Name: "host", Version: "1"}, nil)
	mcp.AddTool(host, &mcp.Tool{Name: "ping"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	srv.AddTo(host)
	cs := mcptest.ConnectMemory(t, catalogContext(t), host, nil)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, " ") != "execute_code execute_readonly_code ping" {
		t.Fatalf("tools %q", names)
	}
	res := run(t, cs, `return (await brakinglab.getSessions({})).length`)
	if res.IsError || string(structuredOf(t, res).Result) != "5" {
		t.Fatalf("%s", text(res))
	}
}

// catalogContext carries the principal a host's own transport would set.
func catalogContext(t *testing.T) context.Context {
	return catalog.WithPrincipal(t.Context(), principal("host-user", allScopes...))
}
