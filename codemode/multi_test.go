package codemode_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/logtest"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

// notesAndTasks builds two catalogs: notes (a read) and tasks (a write
// that needs approval and a read), sharing one store so a script can
// chain them.
type notesAndTasks struct {
	notes, tasks *catalog.Catalog
	mu           sync.Mutex
	created      []string
}

type noteIn struct {
	ID int `json:"id" validate:"min=1"`
}

type note struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
}

type taskIn struct {
	Title string `json:"title" validate:"required"`
}

type task struct {
	Title string `json:"title"`
	By    string `json:"by"`
}

func newNotesAndTasks(t *testing.T) *notesAndTasks {
	t.Helper()
	nt := &notesAndTasks{}
	var err error
	if nt.notes, err = catalog.New("notes", nil); err != nil {
		t.Fatal(err)
	}
	if nt.tasks, err = catalog.New("tasks", nil); err != nil {
		t.Fatal(err)
	}
	must(t, catalog.Add(nt.notes, catalog.Func[noteIn, note]{
		Name: "getNote", Description: "Returns one note by id.", Tier: catalog.ReadOnly,
		Handler: func(_ context.Context, in noteIn) (note, error) {
			return note{ID: in.ID, Text: fmt.Sprintf("call the garage about car %d", in.ID)}, nil
		},
	}))
	must(t, catalog.Add(nt.tasks, catalog.Func[taskIn, task]{
		Name: "addTask", Description: "Adds a task to the user's list.", Tier: catalog.Mutating,
		Approval: catalog.ApprovalRequired,
		Handler: func(ctx context.Context, in taskIn) (task, error) {
			p, _ := catalog.PrincipalFrom(ctx)
			nt.mu.Lock()
			nt.created = append(nt.created, in.Title)
			nt.mu.Unlock()
			return task{Title: in.Title, By: p.Subject}, nil
		},
	}))
	must(t, catalog.Add(nt.tasks, catalog.Func[struct{}, []string]{
		Name: "listTasks", Description: "Lists the titles of the user's tasks.", Tier: catalog.ReadOnly,
		Handler: func(context.Context, struct{}) ([]string, error) {
			nt.mu.Lock()
			defer nt.mu.Unlock()
			return slices.Clone(nt.created), nil
		},
	}))
	return nt
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// newMulti builds a NewMulti server with a one-worker sandbox.
func newMulti(t *testing.T, cats []*catalog.Catalog, opts *codemode.Options) *codemode.Server {
	t.Helper()
	if opts == nil {
		opts = &codemode.Options{}
	}
	if opts.Sandbox.Shared == nil {
		withPool(t, opts, 1)
	}
	if opts.Auth == nil && opts.Principal == nil {
		opts.Principal = &catalog.Principal{Subject: "dev"}
	}
	s, err := codemode.NewMulti(cats, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// connectTo connects the go-sdk client to srv over in-memory transports,
// the server side acting for ctx's principal (if any).
var connectTo = mcptest.ConnectMemory

// One script reads from one namespace and writes to the other; the write
// waits for the user's approval, which names the qualified function, and
// the audit records qualified names.
func TestMultiChainsNamespaces(t *testing.T) {
	nt := newNotesAndTasks(t)
	audit := &auditRecorder{}
	srv := newMulti(t, []*catalog.Catalog{nt.notes, nt.tasks}, &codemode.Options{Audit: codemode.AuditOptions{Sink: audit}})
	var asked []string
	cs := connectTo(t, catalog.WithPrincipal(t.Context(), principal("ana")), srv.MCPServer(), &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	res := run(t, cs, `const n = await notes.getNote({ id: 7 });
const t = await tasks.addTask({ title: n.text });
return { t, all: await tasks.listTasks({}) };`)
	if res.IsError {
		t.Fatalf("%s", text(res))
	}
	got := string(structuredOf(t, res).Result)
	want := `{"all":["call the garage about car 7"],"t":{"by":"ana","title":"call the garage about car 7"}}`
	if got != want {
		t.Fatalf("result %s, want %s", got, want)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "1. tasks.addTask (MUTATING)") || !strings.Contains(asked[0], "change in tasks:") {
		t.Fatalf("approval messages %q", asked)
	}
	var fns []string
	for _, ev := range audit.all() {
		if ev.Kind == codemode.FunctionCalled && ev.ErrorKind == "" {
			fns = append(fns, ev.Function)
		}
	}
	if !slices.Contains(fns, "notes.getNote") || !slices.Contains(fns, "tasks.addTask") {
		t.Fatalf("audited functions %q", fns)
	}
}

// The description, the declarations resources and discovery cover every
// namespace; discovery names are qualified.
func TestMultiDescriptionAndDiscovery(t *testing.T) {
	nt := newNotesAndTasks(t)
	srv := newMulti(t, []*catalog.Catalog{nt.notes, nt.tasks}, nil)
	desc := srv.ToolDescription()
	for _, want := range []string{"against the `notes`, `tasks` APIs", "declare namespace notes {", "declare namespace tasks {", "const addTask: Write<", "function getNote("} {
		if !strings.Contains(desc, want) {
			t.Errorf("description lacks %q:\n%s", want, desc)
		}
	}
	cs := connectTo(t, catalogContext(t), srv.MCPServer(), nil)
	rs, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range rs.Resources {
		uris = append(uris, r.URI)
	}
	if !slices.Contains(uris, "codemode://types/notes.d.ts") || !slices.Contains(uris, "codemode://types/tasks.d.ts") {
		t.Fatalf("resources %q", uris)
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "codemode://functions/tasks/addTask.d.ts"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "declare namespace tasks") {
		t.Fatalf("function resource: %v %v", rr, err)
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "codemode://functions/notes/addTask.d.ts"}); err == nil {
		t.Fatal("notes/addTask.d.ts served: addTask is in tasks")
	}

	res := run(t, cs, `const hits = await codemode.search("task list", { limit: 3 });
const d = await codemode.describe(["listTasks", "notes.getNote"]);
let unknown = "";
try { await codemode.describe("deleteNote"); } catch (e) { unknown = e.message; }
return { names: hits.map(h => h.name), d, unknown };`)
	if res.IsError {
		t.Fatalf("%s", text(res))
	}
	var out struct {
		Names   []string `json:"names"`
		D       string   `json:"d"`
		Unknown string   `json:"unknown"`
	}
	if err := json.Unmarshal(structuredOf(t, res).Result, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Names) == 0 || out.Names[0] != "tasks.listTasks" {
		t.Errorf("search names %q, want tasks.listTasks first", out.Names)
	}
	if !strings.Contains(out.D, "declare namespace notes") || !strings.Contains(out.D, "declare namespace tasks") || strings.Contains(out.D, "addTask") {
		t.Errorf("describe:\n%s", out.D)
	}
	if !strings.Contains(out.Unknown, `notes, tasks has no function "deleteNote"`) {
		t.Errorf("unknown name: %q", out.Unknown)
	}
}

// Duplicate namespaces and the reserved one are refused at New.
func TestMultiNamespaceErrors(t *testing.T) {
	nt := newNotesAndTasks(t)
	other, err := catalog.New("notes", nil)
	must(t, err)
	must(t, catalog.Add(other, catalog.Func[struct{}, int]{Name: "count", Tier: catalog.ReadOnly, Handler: func(context.Context, struct{}) (int, error) { return 1, nil }}))
	p := &catalog.Principal{Subject: "dev"}
	if _, err := codemode.NewMulti([]*catalog.Catalog{nt.notes, other}, &codemode.Options{Principal: p}); !errors.Is(err, codemode.ErrDuplicateNamespace) {
		t.Errorf("duplicate: %v", err)
	}
	reserved, err := catalog.New(codemode.DiscoveryNamespace, nil)
	must(t, err)
	if _, err := codemode.NewMulti([]*catalog.Catalog{nt.notes, reserved}, &codemode.Options{Principal: p}); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("reserved: %v", err)
	}
	empty, err := catalog.New("empty", nil)
	must(t, err)
	if _, err := codemode.NewMulti([]*catalog.Catalog{nt.notes, empty}, &codemode.Options{Principal: p}); !errors.Is(err, codemode.ErrNoFunctions) || !strings.Contains(err.Error(), `"empty"`) {
		t.Errorf("empty catalog: %v", err)
	}
	if _, err := codemode.NewMulti(nil, &codemode.Options{Principal: p}); err == nil {
		t.Error("no catalogs accepted")
	}
}

// A function added after New is served after Refresh: the client is told
// the tool list changed, the description and resources show it and
// scripts can call it.
func TestRefreshAfterChange(t *testing.T) {
	nt := newNotesAndTasks(t)
	srv := newMulti(t, []*catalog.Catalog{nt.notes, nt.tasks}, nil)
	changed := make(chan struct{}, 10)
	cs := connectTo(t, catalogContext(t), srv.MCPServer(), &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	if res := run(t, cs, `return await notes.countNotes({})`); !res.IsError || !strings.Contains(text(res), "countNotes") {
		t.Fatalf("before: %s", text(res))
	}
	must(t, catalog.Add(nt.notes, catalog.Func[struct{}, int]{
		Name: "countNotes", Description: "Counts the user's notes.", Tier: catalog.ReadOnly,
		Handler: func(context.Context, struct{}) (int, error) { return 42, nil },
	}))
	must(t, srv.Refresh())
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed")
	}
	tools, err := cs.ListTools(context.Background(), nil)
	must(t, err)
	if !strings.Contains(tools.Tools[0].Description, "function countNotes(") {
		t.Fatalf("description after refresh:\n%s", tools.Tools[0].Description)
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "codemode://types/notes.d.ts"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "countNotes") {
		t.Fatalf("notes.d.ts after refresh: %v %v", rr, err)
	}
	if res := run(t, cs, `return await notes.countNotes({})`); res.IsError || string(structuredOf(t, res).Result) != "42" {
		t.Fatalf("after: %s", text(res))
	}
}

// A catalog whose Version changes (a function added from JSON Schema,
// one removed) is followed without Refresh: the next request sees it and
// the client is told.
func TestRefreshFollowsVersion(t *testing.T) {
	nt := newNotesAndTasks(t)
	srv := newMulti(t, []*catalog.Catalog{nt.notes, nt.tasks}, nil)
	changed := make(chan struct{}, 10)
	cs := connectTo(t, catalogContext(t), srv.MCPServer(), &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	// On 2026-07-28 a client hears of changes on a subscriptions/listen
	// stream it opens after connecting; a first call lets it settle.
	if res := run(t, cs, `return (await notes.getNote({ id: 1 })).id`); res.IsError {
		t.Fatalf("%s", text(res))
	}
	must(t, catalog.AddSchema(nt.notes, catalog.SchemaFunc{
		Name: "searchNotes", Description: "Finds notes whose text contains a word.", Tier: catalog.ReadOnly,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]}`),
		Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`[{"id":7}]`), nil
		},
	}))
	if !nt.tasks.Remove("listTasks") {
		t.Fatal("Remove listTasks")
	}
	tools, err := cs.ListTools(context.Background(), nil)
	must(t, err)
	desc := tools.Tools[0].Description
	if !strings.Contains(desc, "function searchNotes(") || strings.Contains(desc, "listTasks") {
		t.Fatalf("description after the catalogs changed:\n%s", desc)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed")
	}
	res := run(t, cs, `const hits = await notes.searchNotes({ word: "garage" });
let gone = "";
try { await tasks.listTasks({}); } catch (e) { gone = e.message; }
return { hits, gone };`)
	if res.IsError || !strings.Contains(string(structuredOf(t, res).Result), `"hits":[{"id":7}]`) || !strings.Contains(string(structuredOf(t, res).Result), "listTasks") {
		t.Fatalf("%s", text(res))
	}

	// A catalog that loses every function drops out; the others serve.
	nt.notes.Remove("getNote")
	nt.notes.Remove("searchNotes")
	must(t, srv.Refresh())
	if d := srv.ToolDescription(); strings.Contains(d, "namespace notes") || !strings.Contains(d, "`tasks` API") {
		t.Fatalf("description without notes functions:\n%s", d)
	}
	rs, err := cs.ListResources(context.Background(), nil)
	must(t, err)
	for _, r := range rs.Resources {
		if strings.Contains(r.URI, "notes") {
			t.Fatalf("resource %s still listed", r.URI)
		}
	}
}

// A server the host built and gave to AddTo acts as Options.Principal
// over a transport without one (here in memory; stdio is the same).
func TestAddToHonoursPrincipal(t *testing.T) {
	nt := newNotesAndTasks(t)
	srv := newMulti(t, []*catalog.Catalog{nt.tasks}, &codemode.Options{
		Principal: &catalog.Principal{Subject: "local-user"},
		Approvals: approval.Options{Fallback: approval.Allow},
	})
	host := mcp.NewServer(&mcp.Implementation{Name: "host", Version: "1"}, nil)
	srv.AddTo(host)
	cs := connectTo(t, t.Context(), host, nil) // no principal in the context
	res := run(t, cs, `return await tasks.addTask({ title: "x" })`)
	if res.IsError || string(structuredOf(t, res).Result) != `{"by":"local-user","title":"x"}` {
		t.Fatalf("%s", text(res))
	}
}

// A server given to AddTo and served over HTTP by go-sdk's
// StreamableHTTPHandler without Middleware gets no principal, so its host
// calls cannot be authorised: each fails with code unauthenticated and a
// message that names Server.Middleware and AddTo (it said "sign in and
// retry", which cannot help), and the server logs the misconfiguration
// once. The same handler wrapped in Middleware acts as Options.Principal.
func TestAddToOverHTTPWithoutMiddleware(t *testing.T) {
	nt := newNotesAndTasks(t)
	var logs logtest.Buffer
	srv := newMulti(t, []*catalog.Catalog{nt.notes}, &codemode.Options{
		Principal: &catalog.Principal{Subject: "local-user"},
		Logger:    slog.New(slog.NewTextHandler(&logs, nil)),
		Audit:     codemode.AuditOptions{Sink: codemode.NoAudit},
	})
	host := mcp.NewServer(&mcp.Implementation{Name: "host", Version: "1"}, nil)
	srv.AddTo(host)
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return host }, &mcp.StreamableHTTPOptions{Stateless: true})
	connect := func(h http.Handler) *mcp.ClientSession {
		hs := httptest.NewServer(h)
		t.Cleanup(hs.Close)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
		must(t, err)
		t.Cleanup(func() { cs.Close() })
		return cs
	}

	bare := connect(handler)
	for range 2 {
		res := run(t, bare, `try { await notes.getNote({ id: 3 }); } catch (e) { return e.code + ": " + e.message; }`)
		got := string(structuredOf(t, res).Result)
		for _, want := range []string{`"unauthenticated: notes.getNote: authentication required`, "without passing through codemode's Server.Middleware",
			"wrap the HTTP handler that serves the MCP server given to Server.AddTo in Server.Middleware", "Signing in again or retrying will not help"} {
			if !strings.Contains(got, want) {
				t.Fatalf("host call without Middleware: %s\nwant %q", got, want)
			}
		}
	}
	if n := strings.Count(logs.String(), "without passing through Server.Middleware"); n != 1 {
		t.Fatalf("logged %d times:\n%s", n, logs.String())
	}

	wrapped := connect(srv.Middleware(handler))
	if res := run(t, wrapped, `return (await notes.getNote({ id: 3 })).id`); res.IsError || string(structuredOf(t, res).Result) != "3" {
		t.Fatalf("with Middleware: %s", text(res))
	}
}

// Options.ServerOptions reaches the go-sdk server New builds.
func TestServerOptionsPassThrough(t *testing.T) {
	nt := newNotesAndTasks(t)
	srv := newMulti(t, []*catalog.Catalog{nt.notes}, &codemode.Options{
		ServerOptions: &mcp.ServerOptions{Instructions: "Notes of the garage.", PageSize: 1},
	})
	cs := connectTo(t, catalogContext(t), srv.MCPServer(), nil)
	if got := cs.InitializeResult().Instructions; got != "Notes of the garage." {
		t.Errorf("instructions %q", got)
	}
	page, err := cs.ListResourceTemplates(context.Background(), nil)
	must(t, err)
	if len(page.ResourceTemplates) != 1 || page.NextCursor == "" {
		t.Errorf("PageSize 1 not applied: %d templates, cursor %q", len(page.ResourceTemplates), page.NextCursor)
	}
	if res := run(t, cs, `return (await notes.getNote({ id: 1 })).id`); res.IsError {
		t.Fatalf("%s", text(res))
	}
}

// A host that keeps its own HTTP handler puts codemode's stack in front of
// it with Middleware: bearer authentication with its challenge and
// metadata, the body limit, and calls that act as the token's subject, on
// codemode's tools and the host's own alike.
func TestMiddlewareOnHostHandler(t *testing.T) {
	issuer := oauthmetatest.NewIssuer(t, nil)
	hs := httptest.NewUnstartedServer(nil)
	url := "http://" + hs.Listener.Addr().String() + "/mcp"
	v := issuer.Verifier(url)
	nt := newNotesAndTasks(t)
	srv := newMulti(t, []*catalog.Catalog{nt.notes}, &codemode.Options{
		Auth: &codemode.Auth{Verifier: v, Resource: url, AuthorizationServers: []string{issuer.URL}},
		HTTP: codemode.HTTPOptions{MaxBodyBytes: 4 << 10},
	})
	host := mcp.NewServer(&mcp.Implementation{Name: "host", Version: "1"}, nil)
	mcp.AddTool(host, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, map[string]string, error) {
		return nil, map[string]string{"sub": req.Extra.TokenInfo.UserID}, nil
	})
	srv.AddTo(host)
	mw := srv.Middleware(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return host }, &mcp.StreamableHTTPOptions{Stateless: true}))
	mux := http.NewServeMux()
	mux.Handle("/mcp", mw)
	mux.Handle("/.well-known/", mw)
	hs.Config.Handler = mux
	hs.Start()
	t.Cleanup(hs.Close)

	resp := rawPost(t, url, listToolsBody, nil)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Fatalf("no token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	prm, err := http.Get(strings.Replace(url, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1))
	must(t, err)
	prm.Body.Close()
	if prm.StatusCode != 200 {
		t.Fatalf("metadata: %d", prm.StatusCode)
	}
	tok := issuer.Mint(url, oauthmetatest.WithClaim("sub", "carla"))
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", 8<<10) + `"}}`
	if resp := rawPost(t, url, big, mcpHeaders(tok)); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("large body: %d", resp.StatusCode)
	}

	cs := mcptest.ConnectHTTP(t, url, tok, "", nil)
	if res := run(t, cs, `return (await notes.getNote({ id: 3 })).id`); res.IsError || string(structuredOf(t, res).Result) != "3" {
		t.Fatalf("execute_code: %s", text(res))
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	must(t, err)
	if b, _ := json.Marshal(res.StructuredContent); string(b) != `{"sub":"carla"}` {
		t.Fatalf("whoami: %s", b)
	}
}

// Executions keep running while catalogs change and refresh under them.
func TestRefreshDuringExecutions(t *testing.T) {
	nt := newNotesAndTasks(t)
	srv := newMulti(t, []*catalog.Catalog{nt.notes, nt.tasks}, nil)
	cs := connectTo(t, catalogContext(t), srv.MCPServer(), nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20 {
			if i%2 == 0 {
				must(t, catalog.Add(nt.notes, catalog.Func[struct{}, int]{Name: "extra", Tier: catalog.ReadOnly, Handler: func(context.Context, struct{}) (int, error) { return 1, nil }}))
			} else {
				nt.notes.Remove("extra")
			}
			must(t, srv.Refresh())
		}
	}()
	for range 20 {
		if res := run(t, cs, `return (await notes.getNote({ id: 2 })).id`); res.IsError || string(structuredOf(t, res).Result) != "2" {
			t.Fatalf("%s", text(res))
		}
	}
	<-done
}
