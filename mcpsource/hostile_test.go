package mcpsource_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/codemodetest"
	"github.com/brakinglab/codemode-go/internal/hostiletest"
	"github.com/brakinglab/codemode-go/internal/logtest"
	"github.com/brakinglab/codemode-go/mcpsource"
	"github.com/brakinglab/codemode-go/sandbox"
	"github.com/brakinglab/codemode-go/typegen"
)

func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// An upstream whose schemas are recursive, nested 120 and 1,100 levels
// (past what go-sdk reads, which made the whole list unreadable) and
// ill-founded: the tree and the array of itself are served (a named
// recursive type; unknown with a note), the other three are left out
// with reasons (naming the schema path where there is one), and the rest
// of the server serves.
func TestHostileRecursiveSchemas(t *testing.T) {
	cmd, _ := hostiletest.Command(t, "recursive")
	c := newCatalog(t, "hostile")
	u := connect(t, c, &mcpsource.Options{Command: cmd})
	for _, name := range []string{"ok", "tree", "list", "outer"} {
		if !has(c, name) {
			t.Errorf("%s not registered", name)
		}
	}
	reasons := map[string]string{}
	for _, s := range u.Skipped() {
		reasons[s.Tool] = s.Reason
	}
	for tool, want := range map[string]string{
		"deep":   "catalog: deep: input schema: #/properties/a/properties/…(",
		"loop":   "catalog: loop: input schema: #/$defs/M: the schema refers back to itself",
		"deeper": "its declaration nests 2202 levels deep, more than an MCP client reads (997)",
	} {
		if !strings.HasPrefix(reasons[tool], want) {
			t.Errorf("%s: skipped for %q, want %q…", tool, reasons[tool], want)
		}
	}
	d, err := typegen.Generate(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"function tree(args?: { child?: Root }): Promise<Root>;", "interface Root { child?: Root }", "l?: unknown[]; // Recursive: the same type as #/$defs/L again"} {
		if !strings.Contains(d, want) {
			t.Errorf("declarations lack %q:\n%s", want, d)
		}
	}
	if out := mustCall(t, c, "tree", `{"child":{"child":{"child":{}}}}`); out != `"fine"` {
		t.Errorf("tree: %s", out)
	}
	if out := mustCall(t, c, "ok", `{}`); out != `"fine"` {
		t.Errorf("ok: %s", out)
	}
}

// An upstream listing 5,000 tools: the first MaxTools are registered, the
// rest left out with a reason, and the execute_code description stays
// bounded even when the host lets all 5,000 in.
func TestHostileManyTools(t *testing.T) {
	cmd, _ := hostiletest.Command(t, "many=5000")
	c := newCatalog(t, "many")
	start := hostiletest.CPU()
	u := connect(t, c, &mcpsource.Options{Command: cmd})
	t.Logf("listing and registering 5,001 tools: %v of CPU", hostiletest.CPU()-start)
	if n := len(c.Functions()); n != 1000 {
		t.Errorf("%d functions registered, want 1000", n)
	}
	skipped := u.Skipped()
	if len(skipped) != 4001 || skipped[0].Reason != "the server lists 5001 tools, more than Options.MaxTools (1000): the first 1000 are kept" {
		t.Errorf("%d skipped, first %+v", len(skipped), skipped[0])
	}

	all := newCatalog(t, "all")
	connect(t, all, &mcpsource.Options{Command: cmd, MaxTools: 10000})
	if n := len(all.Functions()); n != 5001 {
		t.Fatalf("%d functions registered with MaxTools 10000", n)
	}
	for _, cat := range []*catalog.Catalog{c, all} {
		who := catalog.Principal{Subject: "alice"}
		start := hostiletest.CPU()
		cm, err := codemode.New(cat, &codemode.Options{Principal: &who, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}, Audit: codemode.AuditOptions{Sink: codemode.NoAudit}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cm.Close() })
		cs, err := codemodetest.Connect(context.Background(), cm, who, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		desc := ""
		for _, tool := range tools.Tools {
			if tool.Name == codemode.ToolName {
				desc = tool.Description
			}
		}
		t.Logf("%s: %d functions, description %d characters, server built and listed in %v of CPU", cat.Namespace(), len(cat.Functions()), len(desc), hostiletest.CPU()-start)
		if len(desc) > 30000 || !strings.Contains(desc, "more functions, not listed here for length") {
			t.Errorf("%s: the description is %d characters:\n%s", cat.Namespace(), len(desc), desc[max(0, len(desc)-400):])
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `
const hits = await codemode.search("tool number 4321", { limit: 3 });
return hits.map(h => h.name);`}})
		if err != nil || res.IsError {
			t.Fatalf("search: %v %+v", err, res)
		}
		if cat == all && !strings.Contains(fmt.Sprint(res.StructuredContent), "tool_4321") {
			t.Errorf("search did not find tool_4321: %v", res.StructuredContent)
		}
	}
}

// An upstream that floods notifications/tools/list_changed is listed at
// most once per MinListInterval, and its tools keep answering meanwhile.
func TestHostileListChangedFlood(t *testing.T) {
	cmd, lists := hostiletest.Command(t, "flood")
	c := newCatalog(t, "flood")
	connect(t, c, &mcpsource.Options{Command: cmd, MinListInterval: 500 * time.Millisecond})
	begin, startCPU := time.Now(), hostiletest.CPU()
	calls := 0
	for time.Since(begin) < 3*time.Second {
		if out := mustCall(t, c, "ok", `{}`); out != `"fine"` {
			t.Fatalf("ok: %s", out)
		}
		calls++
		time.Sleep(50 * time.Millisecond)
	}
	elapsed, used := time.Since(begin), hostiletest.CPU()-startCPU
	b, _ := os.ReadFile(lists)
	n := strings.Count(string(b), "\n")
	t.Logf("%v of flood: %d listings, %d calls answered, %v of this process's CPU (%.0f%% of a core)", elapsed.Round(time.Millisecond), n, calls, used, 100*used.Seconds()/elapsed.Seconds())
	// Connect's listing, then at most one per interval of the time that passed.
	if most := 2 + int(elapsed/(500*time.Millisecond)); n > most {
		t.Errorf("%d listings in %v, at most %d", n, elapsed, most)
	}
	if n < 2 {
		t.Errorf("%d listings: the notifications were not followed at all", n)
	}
}

// An upstream whose nextCursor never ends is listed MaxListPages pages
// deep, the cut logged, and Connect returns with what was listed.
func TestHostileEndlessCursor(t *testing.T) {
	cmd, lists := hostiletest.Command(t, "endless")
	var log logtest.Buffer
	c := newCatalog(t, "endless")
	before := heap()
	start := hostiletest.CPU()
	u := connect(t, c, &mcpsource.Options{Command: cmd, MaxListPages: 20, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	t.Logf("20 pages of 100 tools: %v of CPU, heap %d KiB → %d KiB", hostiletest.CPU()-start, before>>10, heap()>>10)
	b, _ := os.ReadFile(lists)
	if n := strings.Count(string(b), "\n"); n != 20 {
		t.Errorf("%d pages asked for, want 20", n)
	}
	if !strings.Contains(log.String(), "tool list cut short: the server's nextCursor did not end within Options.MaxListPages pages") {
		t.Errorf("the cut is not logged:\n%s", log.String())
	}
	if n := len(c.Functions()); n != 1000 || len(u.Skipped()) != 1001 || !has(c, "ok") {
		t.Errorf("%d registered, %d skipped", n, len(u.Skipped()))
	}
}

// Over Streamable HTTP, as an event stream or as JSON answers, a tool
// nested past go-sdk's 1,000 levels is left out with a reason and the
// server's other tools are served; it used to fail the whole listing.
func TestHostileDeepOverHTTP(t *testing.T) {
	for _, jsonResponse := range []bool{false, true} {
		t.Run(fmt.Sprintf("JSONResponse=%v", jsonResponse), func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "deep", Version: "1"}, nil)
			srv.AddTool(&mcp.Tool{Name: "ok", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}, nil
				})
			deep := strings.Repeat(`{"type":"object","properties":{"a":`, 1100) + `{"type":"string"}` + strings.Repeat(`}}`, 1100)
			srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					res, err := next(ctx, method, req)
					if lr, ok := res.(*mcp.ListToolsResult); ok {
						lr.Tools = append(lr.Tools, &mcp.Tool{Name: "deeper", InputSchema: json.RawMessage(deep)})
					}
					return res, err
				}
			})
			hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse}))
			t.Cleanup(hs.Close)
			c := newCatalog(t, "deep")
			u := connect(t, c, &mcpsource.Options{URL: hs.URL})
			if s := u.Skipped(); len(s) != 1 || s[0].Tool != "deeper" || s[0].Reason != "its declaration nests 2202 levels deep, more than an MCP client reads (997)" {
				t.Errorf("skipped: %+v", s)
			}
			if out := mustCall(t, c, "ok", `{}`); out != `"fine"` {
				t.Errorf("ok: %s", out)
			}
		})
	}
}
