package approval_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

type deleteLapIn struct {
	Number int `json:"number" validate:"required"`
}

// A function that requires approval runs only after the user accepts the
// exact call. The client's elicitation handler shows the user the message
// and answers; the code then runs again and makes the approved calls.
func ExampleOptions() {
	cat, err := catalog.New("garage", nil)
	if err != nil {
		log.Fatal(err)
	}
	catalog.MustAdd(cat, catalog.Func[deleteLapIn, bool]{
		Name:        "deleteLap",
		Description: "Deletes one lap.",
		Tier:        catalog.Mutating,
		Approval:    catalog.ApprovalRequired,
		Handler: func(ctx context.Context, in deleteLapIn) (bool, error) {
			fmt.Println("deleting lap", in.Number)
			return true, nil
		},
	})
	srv, err := codemode.New(cat, &codemode.Options{
		Principal: &catalog.Principal{Subject: "driver-1"},
		Sandbox:   codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
		Audit:     codemode.AuditOptions{Sink: codemode.NoAudit},
		// MUTATING functions need approval; deleteLap would without it.
		Approvals: approval.Options{Tiers: []catalog.Tier{catalog.Mutating}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	go srv.ServeTransport(ctx, catalog.Principal{Subject: "driver-1"}, st)
	client := mcp.NewClient(&mcp.Implementation{Name: "garage-assistant", Title: "Garage Assistant", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Println(req.Params.Message)
			fmt.Println("-- the user accepts")
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `
await Promise.all([garage.deleteLap({ number: 2 }), garage.deleteLap({ number: 3 })]);
return "done";`}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Unordered output:
	// Garage Assistant asks to make 2 changes in garage:
	//
	// 1. garage.deleteLap (MUTATING)
	//    number: 2
	// 2. garage.deleteLap (MUTATING)
	//    number: 3
	//
	// Nothing has been changed yet. Accept to make these changes, and further garage.deleteLap calls this code makes in this execution; decline to make none of them.
	// -- the user accepts
	// deleting lap 2
	// deleting lap 3
	// Writes made by this execution:
	// - garage.deleteLap({"number":2})
	// - garage.deleteLap({"number":3})
	//
	// Result:
	// "done"
}
