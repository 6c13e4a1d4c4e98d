package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/hostiletest"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/internal/tsclienttest"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

// fixture is a configuration of two real upstreams, server-filesystem on
// a temporary directory holding one note and server-memory on a
// temporary file, under the keys "files" and "memory".
type fixture struct {
	dir, note, config string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	files, memory := tsclienttest.ServerScript(t, "server-filesystem"), tsclienttest.ServerScript(t, "server-memory")
	dir := t.TempDir()
	f := &fixture{dir: dir, note: filepath.Join(dir, "note.txt")}
	if err := os.WriteFile(f.note, []byte("brake later into turn 3"), 0o644); err != nil {
		t.Fatal(err)
	}
	node := tsclienttest.Node()
	f.config = writeConfig(t, map[string]any{
		"files":  map[string]any{"command": node, "args": []string{files, dir}},
		"memory": map[string]any{"command": node, "args": []string{memory}, "env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}},
	})
	return f
}

// writeConfig writes a configuration of servers (the entries under
// "mcpServers") to a temporary file and returns its path.
func writeConfig(t *testing.T, servers map[string]any) string {
	t.Helper()
	config := filepath.Join(t.TempDir(), "servers.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(config, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return config
}

// connect opens a gateway on the configuration at config for the
// principal "dev" and connects a go-sdk client with opts to it in
// memory. Both close when the test ends.
func connect(t *testing.T, config string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ups, err := ReadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(t.Context(), ups, &codemode.Options{Principal: &catalog.Principal{Subject: "dev"}, Logger: quietLog(), Audit: codemode.AuditOptions{Sink: codemode.NoAudit}}, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	cs := mcptest.ConnectMemory(t, t.Context(), g.Server.MCPServer(), opts)
	return cs
}

func quietLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// One script chains two real upstreams: it reads a file through
// server-filesystem and stores it as an entity in server-memory. A
// destructive tool (memory.delete_entities) waits for the user, and a
// declined call deletes nothing.
func TestChainAcrossUpstreams(t *testing.T) {
	f := newFixture(t)
	user := &mcptest.Asker{Action: "decline"}
	cs := connect(t, f.config, user.Options())

	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	desc := tools.Tools[0].Description
	for _, want := range []string{"declare namespace files {", "declare namespace memory {", "read_text_file", "create_entities"} {
		if !strings.Contains(desc, want) && !strings.Contains(desc, "- "+want) {
			t.Errorf("description lacks %q", want)
		}
	}

	res := call(t, cs, fmt.Sprintf(`const text = await files.read_text_file({ path: %q });
await memory.create_entities({ entities: [{ name: "note", entityType: "file", observations: [String(text.content ?? text)] }] });
const graph = await memory.read_graph({});
return graph.entities.map(e => e.name + ": " + e.observations.join(" | "));`, f.note))
	if got := string(res); got != `["note: brake later into turn 3"]` {
		t.Fatalf("chained result %s", got)
	}

	out, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `await memory.delete_entities({ entityNames: ["note"] }); return "deleted"`}})
	if err != nil {
		t.Fatal(err)
	}
	if !out.IsError || !strings.Contains(textOf(out), "APPROVAL_DECLINED") {
		t.Fatalf("delete without approval: %s", textOf(out))
	}
	if asked := user.Asked(); len(asked) != 1 || !strings.Contains(asked[0], "memory.delete_entities (MUTATING)") {
		t.Fatalf("approval asked %q", asked)
	}
	if got := string(call(t, cs, `return (await memory.read_graph({})).entities.length`)); got != "1" {
		t.Fatalf("entities after the declined delete: %s", got)
	}
}

func call(t *testing.T, cs *mcp.ClientSession, code string) json.RawMessage {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": code}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("%s", textOf(res))
	}
	var sc struct {
		Result json.RawMessage `json:"result"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatal(err)
	}
	return sc.Result
}

// textOf returns a result's text content.
var textOf = mcptest.Text

// gatewayBin is the gateway binary the end-to-end tests run, built once.
var gatewayBin struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if gatewayBin.dir != "" {
		os.RemoveAll(gatewayBin.dir)
	}
	hostiletest.Remove()
	os.Exit(code)
}

// buildGateway builds the gateway binary, as go run would, once per run.
func buildGateway(t *testing.T) string {
	t.Helper()
	gatewayBin.once.Do(func() {
		if gatewayBin.dir, gatewayBin.err = os.MkdirTemp("", "gateway-test"); gatewayBin.err != nil {
			return
		}
		gatewayBin.path = filepath.Join(gatewayBin.dir, "gateway")
		out, err := exec.Command("go", "build", "-o", gatewayBin.path, ".").CombinedOutput()
		if err != nil {
			gatewayBin.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if gatewayBin.err != nil {
		t.Fatal(gatewayBin.err)
	}
	return gatewayBin.path
}

// tsClient runs testdata/ts-gateway.mjs with env and decodes what it saw.
func tsClient(t *testing.T, env ...string) tsOutcome {
	t.Helper()
	stdout := tsclienttest.Run(t, t.Context(), "testdata/ts-gateway.mjs", env)
	var out tsOutcome
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("client output %q: %v", stdout, err)
	}
	return out
}

type tsOutcome struct {
	Tools       []string
	Description string
	IsError     bool
	Structured  struct {
		Result json.RawMessage `json:"result"`
	}
	Text string
}

func (o tsOutcome) check(t *testing.T) {
	t.Helper()
	if o.IsError || string(o.Structured.Result) != `["note: brake later into turn 3"]` {
		t.Fatalf("TypeScript client got error=%v result=%s text=%s", o.IsError, o.Structured.Result, o.Text)
	}
	if strings.Join(o.Tools, " ") != codemode.ToolName || !strings.Contains(o.Description, "declare namespace files {") {
		t.Fatalf("tools %q", o.Tools)
	}
}

// The gateway binary over stdio, driven by the official TypeScript client
// as Claude Desktop would start it.
func TestGatewayStdioTypeScriptClient(t *testing.T) {
	f := newFixture(t)
	bin := buildGateway(t)
	tsClient(t, "GATEWAY_BIN="+bin, "GATEWAY_CONFIG="+f.config, "NOTE_PATH="+f.note).check(t)
}

// startGateway runs the gateway binary over HTTP with args and returns
// its MCP endpoint, read from its "serving" log line.
func startGateway(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if m := servingURL.FindStringSubmatch(line); m != nil && !sent {
				urls <- m[1]
				sent = true
			}
			if testing.Verbose() {
				fmt.Fprintln(os.Stderr, line)
			}
		}
		if !sent {
			close(urls)
		}
	}()
	select {
	case u, ok := <-urls:
		if !ok {
			t.Fatal("the gateway exited before serving")
		}
		return u
	case <-time.After(60 * time.Second):
		t.Fatal("the gateway did not start serving")
	}
	return ""
}

var servingURL = regexp.MustCompile(`msg="gateway: serving" url=(\S+)`)

// The gateway binary over Streamable HTTP with the usual sign-in: a
// request without a token is challenged towards the issuer, and the
// official TypeScript client with a token from that issuer runs the
// chained script.
func TestGatewayHTTPTypeScriptClient(t *testing.T) {
	f := newFixture(t)
	bin := buildGateway(t)
	issuer := oauthmetatest.NewIssuer(t, nil)
	url := startGateway(t, bin, "-config", f.config, "-addr", "127.0.0.1:0", "-issuer", issuer.URL)

	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "/.well-known/oauth-protected-resource/mcp") {
		t.Fatalf("without a token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	prm, err := http.Get(strings.Replace(url, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		AuthorizationServers []string `json:"authorization_servers"`
	}
	_ = json.NewDecoder(prm.Body).Decode(&meta)
	prm.Body.Close()
	if len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != issuer.URL {
		t.Fatalf("protected resource metadata names %q", meta.AuthorizationServers)
	}

	tok := issuer.Mint(url, oauthmetatest.WithClaim("sub", "ts-user"))
	tsClient(t, "GATEWAY_URL="+url, "GATEWAY_TOKEN="+tok, "NOTE_PATH="+f.note).check(t)
}

// -dev-user serves loopback requests without sign-in, for development.
func TestGatewayHTTPDevUser(t *testing.T) {
	f := newFixture(t)
	bin := buildGateway(t)
	url := startGateway(t, bin, "-config", f.config, "-addr", "127.0.0.1:0", "-dev-user", "dev")
	tsClient(t, "GATEWAY_URL="+url, "NOTE_PATH="+f.note).check(t)
}
