package mcpsource_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/mcpsource"
	"github.com/brakinglab/codemode-go/sandbox"
)

type getNoteIn struct {
	ID string `json:"id" jsonschema:"the note's id"`
}

type Note struct {
	ID    string   `json:"id"`
	Title string   `json:"title"`
	Tags  []string `json:"tags"`
}

var notes = map[string]Note{
	"n1": {"n1", "Brake later into turn 1", []string{"monza"}},
	"n2": {"n2", "Trail brake into the chicane", []string{"monza", "braking"}},
}

func getNote(_ context.Context, _ *mcp.CallToolRequest, in getNoteIn) (*mcp.CallToolResult, Note, error) {
	n, ok := notes[in.ID]
	if !ok {
		return nil, Note{}, fmt.Errorf("no note %s", in.ID)
	}
	return nil, n, nil
}

// A go-sdk server with typed tools gains code mode in a few lines: each
// tool is declared once, served as a plain tool and as a function of the
// catalogue that execute_code calls.
func Example() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	cat, err := catalog.New("notes", &catalog.Options{AllowAnonymous: true})
	if err != nil {
		log.Fatal(err)
	}
	// Instead of mcp.AddTool(srv, tool, getNote):
	err = mcpsource.AddTool(cat, &mcp.Tool{
		Name:        "get-note",
		Description: "Returns one note.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, getNote, &mcpsource.ToolOptions{Server: srv})
	if err != nil {
		log.Fatal(err)
	}
	cm, err := codemode.New(cat, &codemode.Options{Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}, Audit: codemode.AuditOptions{Sink: codemode.NoAudit}})
	if err != nil {
		log.Fatal(err)
	}
	defer cm.Close()
	cm.AddTo(srv)

	// A client of the server sees both.
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	plain, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-note", Arguments: map[string]any{"id": "n1"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("plain:", plain.Content[0].(*mcp.TextContent).Text)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `
const found = await Promise.all(["n1", "n2"].map((id) => notes.get_note({ id })));
const missing = await notes.get_note({ id: "n3" }).catch((e) => e.message);
return { braking: found.filter((n) => n.tags.includes("braking")).map((n) => n.title), missing };`}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// plain: {"id":"n1","tags":["monza"],"title":"Brake later into turn 1"}
	// Calls that failed (the script caught their errors and went on):
	// - notes.get_note at line 3, column 29: no note n3 (code: tool_error)
	//
	// Result:
	// {
	//   "braking": [
	//     "Trail brake into the chicane"
	//   ],
	//   "missing": "no note n3"
	// }
}

// Tool names that are not JavaScript identifiers are converted.
func ExampleFuncName() {
	fmt.Println(mcpsource.FuncName("read_graph"))
	fmt.Println(mcpsource.FuncName("get-tiny-image"))
	fmt.Println(mcpsource.FuncName("delete"))
	// Output:
	// read_graph
	// get_tiny_image
	// delete_
}

// Tiers come from a tool's annotations. A tool that does not say whether
// it is destructive is taken to be, as the MCP specification says: every
// call waits for the user's approval.
func ExampleTierOf() {
	destructive, additive := true, false
	for _, a := range []*mcp.ToolAnnotations{{ReadOnlyHint: true}, {DestructiveHint: &additive}, {DestructiveHint: &destructive}, nil} {
		tier, approval := mcpsource.TierOf(a)
		fmt.Println(tier, approval)
	}
	// Output:
	// READ-ONLY default
	// CREATIVE default
	// MUTATING required
	// MUTATING required
}
