package codemode_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/codemodetest"
)

// Two catalogs served by one endpoint: each is a namespace, and one
// program joins them.
func ExampleNewMulti() {
	weather, err := catalog.New("weather", nil)
	if err != nil {
		log.Fatal(err)
	}
	catalog.MustAdd(weather, catalog.Func[struct{}, string]{
		Name: "forecast", Description: "Tomorrow's forecast at the track.", Tier: catalog.ReadOnly,
		Handler: func(context.Context, struct{}) (string, error) { return "rain", nil },
	})
	driver := catalog.Principal{Subject: "driver-1"}
	srv, err := codemode.NewMulti([]*catalog.Catalog{exampleCatalog(), weather}, &codemode.Options{
		Principal: &driver,
		Audit:     codemode.AuditOptions{Sink: codemode.NoAudit},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	ctx := context.Background()
	cs, err := codemodetest.Connect(ctx, srv, driver, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `
const [laps, sky] = await Promise.all([garage.getLaps({ track: "Spa" }), weather.forecast({})]);
return sky === "rain" ? "wet tyres; " + laps.length + " dry laps on record" : "slicks";`}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// Result:
	// "wet tyres; 3 dry laps on record"
}

// A host that serves its own go-sdk server adds the code tools with AddTo,
// serves it with StreamableHTTPHandler (sessions for the clients that
// codemode asks during a call, stateless requests for the rest) and puts
// codemode's HTTP stack (CORS, body limit, identity, rate limits,
// cancellation) in front with Middleware.
func ExampleServer_Middleware() {
	driver := catalog.Principal{Subject: "driver-1"}
	cm, err := codemode.New(exampleCatalog(), &codemode.Options{Principal: &driver, Audit: codemode.AuditOptions{Sink: codemode.NoAudit}})
	if err != nil {
		log.Fatal(err)
	}
	defer cm.Close()
	host := mcp.NewServer(&mcp.Implementation{Name: "garage", Version: "1"}, nil)
	mcp.AddTool(host, &mcp.Tool{Name: "ping"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
	})
	cm.AddTo(host)
	mux := http.NewServeMux()
	mux.Handle("/mcp", cm.Middleware(cm.StreamableHTTPHandler(host, nil)))
	hs := httptest.NewServer(mux)
	defer hs.Close()

	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	var names []string
	for _, t := range tools.Tools {
		names = append(names, t.Name)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `return (await garage.getLaps({ track: "Spa" })).length`}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Join(names, " "))
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// execute_code ping
	// Result:
	// 3
}
