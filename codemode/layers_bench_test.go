package codemode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

// BenchmarkToolCallLayers decomposes one tools/call into its layers, in one
// run so the figures can be compared as ratios on the same machine:
//
//   - bare-sdk: a go-sdk server with one trivial tool, served statelessly
//     over loopback HTTP exactly as codemode serves, called by the go-sdk
//     client. This is the floor: JSON-RPC, HTTP and the SDK.
//   - codemode/*: the same client calling execute_code on a codemode
//     server (worker mode, no auth, rate limit off).
//   - sandbox/*: sandbox.Run alone, with the fixture catalog as its host.
//
// Each script runs with repeated code (the compile cache has seen it) and
// with distinct code (a never-seen program every call, the realistic
// workload). codemode's own cost is codemode/empty minus bare-sdk minus
// sandbox/empty, all at p50.
func BenchmarkToolCallLayers(b *testing.B) {
	scripts := []struct{ name, code string }{
		{"empty", "return 1;"},
		{"coaching", coachingTS},
	}
	b.Run("bare-sdk", benchBareSDK)
	for _, sc := range scripts {
		for _, distinct := range []bool{false, true} {
			name := sc.name + "/" + codeKind(distinct)
			b.Run("codemode/"+name, func(b *testing.B) { benchCodemodeCall(b, sc.code, distinct) })
			b.Run("sandbox/"+name, func(b *testing.B) { benchSandboxRun(b, sc.code, distinct) })
		}
	}
}

func codeKind(distinct bool) string {
	if distinct {
		return "distinct"
	}
	return "repeated"
}

// variant makes code never seen before when distinct is set: the first
// line differs, so neither a cache keyed on the source nor one keyed on the
// transpiled output can answer it.
func variant(code string, distinct bool, n int64) string {
	if !distinct {
		return code
	}
	return fmt.Sprintf("const __run%d = %d;\n%s", n, n, code)
}

// latencies records one duration per iteration and reports p50 and p99.
type latencies []time.Duration

func (l latencies) report(b *testing.B) {
	slices.Sort(l)
	b.ReportMetric(float64(l[len(l)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(l[len(l)*99/100].Microseconds())/1000, "p99-ms")
}

func benchBareSDK(b *testing.B) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	type in struct {
		Code string `json:"code"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Returns its input."}, func(ctx context.Context, req *mcp.CallToolRequest, args in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: args.Code}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
	benchCalls(b, h, "echo", "return 1;", false)
}

func benchCodemodeCall(b *testing.B, code string, distinct bool) {
	srv := benchServer(b, sandbox.ModeWorker)
	benchCalls(b, srv.Handler(), codemode.ToolName, code, distinct)
}

// benchCalls serves h on loopback and times b.N sequential tools/call
// requests from one go-sdk client.
func benchCalls(b *testing.B, h http.Handler, tool, code string, distinct bool) {
	hs := httptest.NewServer(h)
	defer hs.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", HTTPClient: hs.Client()}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	var n atomic.Int64
	call := func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"code": variant(code, distinct, n.Add(1))}})
		if err != nil || res.IsError {
			b.Fatalf("%v %s", err, text(res))
		}
	}
	for range 20 { // warm up: connections, workers, the compile cache
		call()
	}
	lat := make(latencies, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		call()
		lat[i] = time.Since(t0)
	}
	b.StopTimer()
	lat.report(b)
}

func benchSandboxRun(b *testing.B, code string, distinct bool) {
	tc := newTestCatalog(b)
	sb, err := sandbox.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	host := catalogHost{tc.Catalog}
	ctx := catalog.WithPrincipal(context.Background(), principal("bench", allScopes...))
	var n int64
	run := func() {
		n++
		if _, err := sb.Run(ctx, variant(code, distinct, n), host); err != nil {
			b.Fatal(err)
		}
	}
	for range 20 {
		run()
	}
	lat := make(latencies, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		run()
		lat[i] = time.Since(t0)
	}
	b.StopTimer()
	lat.report(b)
}

// catalogHost is the smallest sandbox.Host over a catalog, for measuring
// the sandbox without codemode around it.
type catalogHost struct{ cat *catalog.Catalog }

func (h catalogHost) Functions() map[string][]string {
	var names []string
	for _, f := range h.cat.Functions() {
		names = append(names, f.Name)
	}
	return map[string][]string{h.cat.Namespace(): names}
}

func (h catalogHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	return h.cat.Call(ctx, strings.TrimPrefix(name, h.cat.Namespace()+"."), args)
}

// benchServer is a server over the test catalog for benchmarks, in the
// sandbox mode given, as bench
// with every limit of rate off (the request limit, 200 at once, would
// refuse a long run) and an audit sink that drops the events it is
// given (so they are still built), closed when b ends.
func benchServer(b *testing.B, mode sandbox.Mode) *codemode.Server {
	b.Helper()
	p := principal("bench", allScopes...)
	srv, err := codemode.New(newTestCatalog(b).Catalog, &codemode.Options{
		Principal:  &p,
		Logger:     slog.New(slog.DiscardHandler),
		RateLimits: codemode.RateLimitOptions{RatePerSecond: -1, RequestsPerSecond: -1},
		Audit:      codemode.AuditOptions{Sink: codemode.AuditFunc(func(context.Context, codemode.AuditEvent) {})},
		Sandbox:    codemode.SandboxOptions{Mode: mode},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	return srv
}
