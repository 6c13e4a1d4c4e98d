package mcpsource_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
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
	cm, err := codemode.New(c, &codemode.Options{SandboxMode: sandbox.ModeInProcess, Audit: codemode.NoAudit, Principal: &who})
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
