package mcpsource_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/codemodetest"
	"github.com/brakinglab/codemode-go/mcpsource"
	"github.com/brakinglab/codemode-go/sandbox"
)

// One script chains the reference memory and filesystem servers: it
// stores an entity, reads it back, writes its observations to a file and
// reads the file, through code mode served to the go-sdk client.
func TestScriptChainsTwoUpstreams(t *testing.T) {
	memCmd, _ := memoryServer(t)
	bin, fsScript := node(t, "server-filesystem")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := newCatalog(t, "tools")
	connect(t, c, &mcpsource.Options{Command: memCmd})
	connect(t, c, &mcpsource.Options{
		Command: func() *exec.Cmd { return exec.Command(bin, fsScript, dir) },
		// write_file is destructive: approved by the user unless the host
		// decides otherwise, as it does here.
		Tools: map[string]mcpsource.ToolConfig{"write_file": {Approval: catalog.ApprovalNotRequired}},
	})
	for _, f := range c.Functions() {
		if f.Name == "edit_file" && (f.Tier != catalog.Mutating || f.Approval != catalog.ApprovalRequired) {
			t.Errorf("edit_file: %s/%s", f.Tier, f.Approval)
		}
	}

	who := catalog.Principal{Subject: "alice"}
	cm, err := codemode.New(c, &codemode.Options{Principal: &who, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}, Audit: codemode.AuditOptions{Sink: codemode.NoAudit}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cm.Close() })
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	go cm.ServeTransport(ctx, who, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `
await tools.create_entities({ entities: [{ name: "Monza", entityType: "track", observations: ["fast", "old"] }] });
const graph = await tools.open_nodes({ names: ["Monza"] });
const path = ` + "`" + dir + "/monza.txt`" + `;
await tools.write_file({ path, content: graph.entities[0].observations.join(",") });
const file = await tools.read_text_file({ path });
return file.content;`}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || !strings.Contains(text, `"fast,old"`) {
		t.Fatalf("result: %s", text)
	}
}

// codeHarness serves code mode over c, in process, to the official MCP
// Go client (through codemodetest), acting as alice and answering every
// approval question with approve.
func codeHarness(t *testing.T, c *catalog.Catalog, approve codemodetest.ApproveFunc) *codemodetest.Harness {
	return codemodetest.New(t, c, &codemodetest.Options{Principal: &catalog.Principal{Subject: "alice"}, Approve: approve,
		Server: &codemode.Options{Logger: quiet, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}, Audit: codemode.AuditOptions{Sink: codemode.NoAudit}}})
}

// An upstream tool without annotations, served by a real stdio process,
// asks the user before it runs: declined, it never reaches the server;
// accepted, it runs once. A tool annotated destructiveHint false runs
// without asking. Trusting the server's unannotated tools
// (Options.UnannotatedTier), or that one tool (Options.Tools), runs it
// without asking.
func TestUnannotatedUpstreamToolAsks(t *testing.T) {
	cmd, log := fakeLogging(t)
	logged := func() string { b, _ := os.ReadFile(log); return string(b) }
	const forget = `await fake.forget({ id: "n1" }); return "forgotten";`

	c := newCatalog(t, "fake")
	connect(t, c, &mcpsource.Options{Command: cmd})
	h := codeHarness(t, c, codemodetest.Decline)
	res := h.Run(t, forget)
	if res.Err == nil || !strings.Contains(res.Text, "APPROVAL_DECLINED") {
		t.Fatalf("declined forget: %s", res.Text)
	}
	if q := res.Approvals; len(q) != 1 || !strings.Contains(q[0].Message, "fake.forget (MUTATING)") || !strings.Contains(q[0].Message, `"n1"`) {
		t.Fatalf("questions %+v", q)
	}
	if l := logged(); l != "" {
		t.Fatalf("a declined call reached the server: %q", l)
	}
	if res := h.Run(t, `await fake.remember({ id: "n2" }); return "kept";`); res.Err != nil || !strings.Contains(res.Text, `"kept"`) {
		t.Fatalf("remember: %s", res.Text)
	} else if len(res.Approvals) != 0 {
		t.Fatalf("remember asked: %+v", res.Approvals)
	}

	c = newCatalog(t, "fake")
	connect(t, c, &mcpsource.Options{Command: cmd})
	if res := codeHarness(t, c, codemodetest.Accept).Run(t, forget); res.Err != nil || !strings.Contains(res.Text, `"forgotten"`) || len(res.Approvals) != 1 {
		t.Fatalf("accepted forget: %s; asked %+v", res.Text, res.Approvals)
	}
	if l := logged(); l != "remember {\"id\":\"n2\"}\nforget {\"id\":\"n1\"}\n" {
		t.Fatalf("log after the accepted call: %q", l)
	}

	for name, o := range map[string]*mcpsource.Options{
		"server trusted": {Command: cmd, UnannotatedTier: catalog.Creative},
		"tool trusted":   {Command: cmd, Tools: map[string]mcpsource.ToolConfig{"forget": {Tier: catalog.Creative}}},
	} {
		c := newCatalog(t, "fake")
		connect(t, c, o)
		h := codeHarness(t, c, codemodetest.Decline)
		before := strings.Count(logged(), "forget")
		if res := h.Run(t, forget); res.Err != nil || !strings.Contains(res.Text, `"forgotten"`) || len(res.Approvals) != 0 {
			t.Fatalf("%s: %s; asked %+v", name, res.Text, res.Approvals)
		}
		if n := strings.Count(logged(), "forget"); n != before+1 {
			t.Fatalf("%s: forget ran %d times", name, n-before)
		}
	}
}
