package codemode_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/codemodetest"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
	"github.com/brakinglab/codemode-go/sandbox"
)

type lapsIn struct {
	Track string `json:"track" validate:"required"`
}

type lap struct {
	Number int `json:"number"`
	TimeMs int `json:"timeMs"`
}

// exampleCatalog registers one READ-ONLY function.
func exampleCatalog() *catalog.Catalog {
	cat, err := catalog.New("garage", nil)
	if err != nil {
		log.Fatal(err)
	}
	catalog.MustAdd(cat, catalog.Func[lapsIn, []lap]{
		Name:        "getLaps",
		Description: "Lists the laps driven on a track.",
		Tier:        catalog.ReadOnly,
		Handler: func(ctx context.Context, in lapsIn) ([]lap, error) {
			return []lap{{1, 92500}, {2, 91800}, {3, 92100}}, nil
		},
	})
	return cat
}

// A host builds a catalog, wraps it in a codemode server and serves it; a
// client then runs one program that calls the host and returns only what
// it needs. The program runs in a sandbox worker process (the default
// mode): the example's own binary, re-executed.
func Example() {
	driver := catalog.Principal{Subject: "driver-1"}
	srv, err := codemode.New(exampleCatalog(), &codemode.Options{
		// Development mode: HTTP requests from loopback act as driver.
		// Serving only stdio, a host sets it to the same principal.
		Principal: &driver,
		Audit:     codemode.AuditOptions{Sink: codemode.NoAudit},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	// In-memory transports stand in for stdio here.
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	go srv.ServeTransport(ctx, driver, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `
const laps = await garage.getLaps({ track: "Spa" });
const best = laps.reduce((a, b) => (a.timeMs <= b.timeMs ? a : b));
console.log("laps:", laps.length);
return { bestLap: best.number, seconds: best.timeMs / 1000 };`}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// Logs:
	// laps: 3
	//
	// Result:
	// {
	//   "bestLap": 2,
	//   "seconds": 91.8
	// }
}

// A failed run is an isError result naming the kind of error and the
// position in the model's own code.
func Example_error() {
	srv, err := codemode.New(exampleCatalog(), &codemode.Options{
		// In process: an example's short script needs no memory limit.
		Sandbox:   codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
		Principal: &catalog.Principal{Subject: "driver-1"},
		Audit:     codemode.AuditOptions{Sink: codemode.NoAudit},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	cs, err := codemodetest.Connect(ctx, srv, catalog.Principal{Subject: "driver-1"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": "const laps = await garage.getLaps({});\nreturn laps.length;"}})
	fmt.Println(res.IsError)
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// true
	// RUNTIME at line 1, column 27: Error: Validation failed
	//   - track: Required field
}

// Handler serves the whole server over HTTP: Streamable HTTP at /mcp, OAuth
// metadata, bearer tokens, CORS, rate limiting and body limits. A request
// without a token is told where to sign in.
func ExampleServer_Handler() {
	const issuer = "https://auth.example.com"
	const resource = "https://coach.example.com/mcp"
	// JWT access tokens, checked locally: jwtverify.New(issuer, resource,
	// nil) (module github.com/brakinglab/codemode-go/oauthmeta/jwtverify).
	// Here opaque tokens, which the issuer introspects (RFC 7662).
	verifier, err := bearer.NewIntrospectionVerifier(issuer, resource, &bearer.IntrospectionOptions{
		ClientID: "garage-api", ClientSecret: os.Getenv("INTROSPECTION_SECRET"),
	})
	if err != nil {
		log.Fatal(err)
	}
	srv, err := codemode.New(exampleCatalog(), &codemode.Options{
		Name:    "garage",
		Version: "1.0.0",
		Auth: &codemode.Auth{
			Verifier:             verifier,
			Resource:             resource,
			AuthorizationServers: []string{issuer},
		},
		HTTP:  codemode.HTTPOptions{AllowedOrigins: []string{"https://inspector.example.com"}},
		Audit: codemode.AuditOptions{Sink: codemode.NoAudit},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	// In a service: http.ListenAndServe(addr, srv.Handler()).
	w := httptest.NewRecorder()
	srv.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodPost, resource, strings.NewReader(`{}`)))
	fmt.Println(w.Code)
	fmt.Println(w.Header().Get("WWW-Authenticate"))
	// Output:
	// 401
	// Bearer resource_metadata="https://coach.example.com/.well-known/oauth-protected-resource/mcp"
}

// A local client (Claude Desktop, an IDE) starts the service as a child
// process and speaks MCP over its stdin and stdout. Pipes stand in for
// them here ([Server.ServeIO]); a real main calls
// srv.ServeStdio(ctx, user). The local user's scopes are what the session
// is granted: give it every scope the catalog needs.
func ExampleServer_ServeStdio() {
	user := catalog.Principal{Subject: "driver-1", ClientID: "local", Scopes: []string{"laps:read"}}
	srv, err := codemode.New(exampleCatalog(), &codemode.Options{
		Principal: &user, // New wants an identity for HTTP too: the same user
		Logger:    slog.New(slog.DiscardHandler),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	ctx := context.Background()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	go srv.ServeIO(ctx, user, serverIn, serverOut) // srv.ServeStdio(ctx, user) in a real main
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{
		"code": `return (await garage.getLaps({track: "Monza"})).length`}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// Result:
	// 3
}

// Development mode: without Auth, every HTTP request acts as
// Options.Principal, and only from loopback; a request from another
// machine gets 403.
func Example_developmentMode() {
	dev := catalog.Principal{Subject: "dev", Scopes: []string{"laps:read"}}
	srv, err := codemode.New(exampleCatalog(), &codemode.Options{
		Principal: &dev,
		Logger:    slog.New(slog.DiscardHandler),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv.Handler()) // listens on 127.0.0.1
	defer hs.Close()

	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{
		"code": `return (await garage.getLaps({track: "Spa"}))[0]`}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)

	remote := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{}`))
	remote.RemoteAddr = "192.0.2.2:40000"
	w := httptest.NewRecorder()
	srv.Handler().ServeHTTP(w, remote)
	fmt.Println(w.Code)
	// Output:
	// Result:
	// {
	//   "number": 1,
	//   "timeMs": 92500
	// }
	// 403
}

// The default audit sink writes one JSON object per event through slog:
// the code's hash instead of the code, argument keys and sizes instead of
// values.
func ExampleNewSlogAudit() {
	stable := func(_ []string, a slog.Attr) slog.Attr {
		switch a.Key {
		case slog.TimeKey, "traceId", "durationMs":
			return slog.Attr{} // vary from run to run
		}
		return a
	}
	logger := slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: stable}))
	srv, err := codemode.New(exampleCatalog(), &codemode.Options{
		Principal: &catalog.Principal{Subject: "driver-1", ClientID: "claude"},
		Sandbox:   codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
		Audit:     codemode.AuditOptions{Sink: codemode.NewSlogAudit(logger)},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	cs, err := codemodetest.Connect(ctx, srv, catalog.Principal{Subject: "driver-1", ClientID: "claude"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `return (await garage.getLaps({track: "Spa"})).length`}})
	// Output:
	// {"level":"INFO","msg":"audit","log.kind":"audit","event":"execution.started","tool":"execute_code","subject":"driver-1","clientId":"claude","codeSha256":"2a5a409ba64980d72e7141545ddd8313e348097abd5a9cb7ce3188e404e7400f","codeBytes":52}
	// {"level":"INFO","msg":"audit","log.kind":"audit","event":"function.called","tool":"execute_code","subject":"driver-1","clientId":"claude","codeSha256":"2a5a409ba64980d72e7141545ddd8313e348097abd5a9cb7ce3188e404e7400f","codeBytes":52,"function":"garage.getLaps","tier":"READ-ONLY","args":{"track":5},"resultBytes":85}
	// {"level":"INFO","msg":"audit","log.kind":"audit","event":"execution.finished","tool":"execute_code","subject":"driver-1","clientId":"claude","codeSha256":"2a5a409ba64980d72e7141545ddd8313e348097abd5a9cb7ce3188e404e7400f","codeBytes":52,"resultBytes":1,"calls":1}
}
