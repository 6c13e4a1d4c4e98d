package codemodetest_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/codemodetest"
	"github.com/brakinglab/codemode-go/sandbox"
)

type lapsIn struct {
	Track string `json:"track" validate:"required"`
}

type lap struct {
	Number int `json:"number"`
	TimeMs int `json:"timeMs"`
}

type deleteIn struct {
	Number int `json:"number" validate:"required"`
}

// garage is the catalog under test: one read and one write that needs the
// user's approval.
func garage() *catalog.Catalog {
	cat, _ := catalog.New("garage", nil)
	catalog.MustAdd(cat, catalog.Func[lapsIn, []lap]{
		Name:        "getLaps",
		Description: "Lists the laps driven on a track.",
		Tier:        catalog.ReadOnly,
		Scopes:      []string{"garage:read"},
		Handler: func(ctx context.Context, in lapsIn) ([]lap, error) {
			if in.Track != "Spa" {
				return nil, catalog.NotFound("no laps on %s", in.Track)
			}
			return []lap{{1, 92500}, {2, 91800}}, nil
		},
	})
	catalog.MustAdd(cat, catalog.Func[deleteIn, bool]{
		Name:        "deleteLap",
		Description: "Deletes one lap.",
		Tier:        catalog.Mutating,
		Approval:    catalog.ApprovalRequired,
		Handler: func(ctx context.Context, in deleteIn) (bool, error) {
			fmt.Println("deleted lap", in.Number)
			return true, nil
		},
	})
	return cat
}

var ctx = context.Background()

// A script runs as the model's would; the test decodes what it returned.
// In a test, New(t, cat, nil) does the same, closes the harness when the
// test ends, and Run and Value fail the test instead of returning errors.
func Example() {
	h, err := codemodetest.Start(garage(), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	res, err := h.Execute(ctx, `
const laps = await garage.getLaps({ track: "Spa" });
console.log("laps:", laps.length);
return laps.filter((l) => l.timeMs < 92000);`, nil)
	if err != nil {
		log.Fatal(err)
	}
	fast, err := codemodetest.Decode[[]lap](res)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(fast, res.Logs, res.Calls[0].Function, res.Calls[0].Outcome)
	// Output: [{2 91800}] [laps: 2] garage.getLaps ok
}

// A failed execution carries the error the model reads; errors.Is matches
// its sandbox kind and, for an uncaught host error, its catalog code.
func ExampleError() {
	h, err := codemodetest.Start(garage(), &codemodetest.Options{
		Principal: &catalog.Principal{Subject: "driver-1", Scopes: []string{"garage:read"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	res, _ := h.Execute(ctx, `return await garage.getLaps({ track: "Monza" })`, nil)
	fmt.Println(res.Err)
	fmt.Println(errors.Is(res.Err, &sandbox.Error{Kind: sandbox.KindRuntime}),
		errors.Is(res.Err, &catalog.Error{Code: catalog.CodeNotFound}))

	res, _ = h.Execute(ctx, `return await garage.getLaps({})`, nil)
	fmt.Println(res.Err.Code, res.Err.Issues)

	// Another principal, without the scope.
	res, _ = h.Execute(ctx, `return await garage.getLaps({ track: "Spa" })`,
		&codemodetest.RunOptions{Principal: &catalog.Principal{Subject: "guest"}})
	fmt.Println(res.Err.Code)
	// Output:
	// RUNTIME at line 1, column 21 (not_found): Error: no laps on Monza
	// true true
	// validation [{[track] Required field}]
	// insufficient_scope
}

// The test plays the user who approves, or declines, the calls that need
// approval.
func ExampleAccept() {
	h, err := codemodetest.Start(garage(), &codemodetest.Options{Approve: codemodetest.Accept})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	res, _ := h.Execute(ctx, `return await garage.deleteLap({ number: 2 })`, nil)
	fmt.Println(string(res.Value), len(res.Approvals), res.Approvals[0].Accepted)

	res, _ = h.Execute(ctx, `return await garage.deleteLap({ number: 3 })`,
		&codemodetest.RunOptions{Approve: codemodetest.Decline})
	fmt.Println(res.Err.Kind, res.Approvals[0].Accepted)
	// Output:
	// deleted lap 2
	// true 1 true
	// APPROVAL_DECLINED false
}

// A server the host built itself, here two catalogs behind one endpoint
// with codemode.NewMulti, is reached with Connect: the official client,
// in memory, acting as the principal given.
func ExampleConnect() {
	weather, _ := catalog.New("weather", nil)
	catalog.MustAdd(weather, catalog.Func[struct{}, string]{
		Name: "forecast", Description: "Tomorrow's forecast at the track.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, _ struct{}) (string, error) {
			p, _ := catalog.PrincipalFrom(ctx)
			return "rain, for " + p.Subject, nil
		},
	})
	driver := catalog.Principal{Subject: "driver-1", Scopes: []string{"garage:read"}}
	srv, err := codemode.NewMulti([]*catalog.Catalog{garage(), weather}, &codemode.Options{
		Principal: &driver,
		Sandbox:   codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
		Audit:     codemode.AuditOptions{Sink: codemode.NoAudit},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	cs, err := codemodetest.Connect(ctx, srv, driver, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `
const [laps, sky] = await Promise.all([garage.getLaps({ track: "Spa" }), weather.forecast({})]);
return sky + ": " + laps.length + " laps";`}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// Result:
	// "rain, for driver-1: 2 laps"
}
