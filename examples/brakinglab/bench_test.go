package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchSession serves BrakingLab with the demo data (authentication off, so
// token verification is not measured) and connects a go-sdk client over
// Streamable HTTP.
func benchSession(b *testing.B) *mcp.ClientSession {
	b.Helper()
	srv := serveWired(b, "127.0.0.1:8080", []string{"-db", filepath.Join(b.TempDir(), "lab.db"), "-insecure-no-auth"}, nil)
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

func benchExecute(b *testing.B, code string, distinct bool) {
	cs := benchSession(b)
	var lat []time.Duration
	for n := 0; b.Loop(); n++ {
		src := code
		if distinct { // a program the server has never seen
			src = fmt.Sprintf("const __run%d = %d;\n%s", n, n, code)
		}
		t0 := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{"code": src}})
		lat = append(lat, time.Since(t0))
		if err != nil || res.IsError {
			b.Fatalf("execute_code: %v %s", err, toolText(res))
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
}

// BenchmarkCoachingScript measures the seed's coaching script end to end
// against the demo data: MCP over Streamable HTTP, transpile, a sandbox
// worker, four host calls into SQLite and the analysis, and the saved
// report (one write per iteration).
func BenchmarkCoachingScript(b *testing.B) {
	script, err := os.ReadFile(filepath.Join("testdata", "coaching.ts"))
	if err != nil {
		b.Fatal(err)
	}
	for _, distinct := range []bool{false, true} {
		name := "code=repeated"
		if distinct {
			name = "code=distinct"
		}
		b.Run(name, func(b *testing.B) { benchExecute(b, string(script), distinct) })
	}
}

// BenchmarkTrivialScript is the fixed cost of one execute_code call: MCP
// over HTTP, the sandbox round trip and no host call.
func BenchmarkTrivialScript(b *testing.B) {
	benchExecute(b, "return 1;", false)
}
