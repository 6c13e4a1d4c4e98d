package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/internal/readmetest"
)

// TestReadmeScripts runs the scripts the README shows for its example
// prompts (kept beside the functions, which also type-check them) through
// the running server against the demo data, so the README cannot drift
// from the functions.
func TestReadmeScripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "functions", "testdata", "prompts", "*.ts"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no README scripts: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := readmeClient(t, ctx)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			code, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			value, logs := executeCode(t, ctx, cs, string(code))
			if len(value) == 0 || string(value) == "null" || strings.HasPrefix(string(value), `"No `) {
				t.Errorf("returned %s; logs:\n%s", value, logs)
			}
			t.Logf("returned %s", value)
		})
	}
}

// TestReadmeCodeBlocks runs every complete TypeScript script of the
// README (one without a … placeholder) for BrakingLab's namespace through
// the running server against the demo data, exactly as the README shows
// it: each must succeed. The gateway's script runs against its upstreams
// in examples/gateway (TestReadmeGatewayScript).
func TestReadmeCodeBlocks(t *testing.T) {
	var blocks []readmetest.Block
	for _, b := range readmetest.Scripts(t, ".") {
		switch {
		case !b.Complete():
			t.Logf("README line %d: a fragment (it has a … placeholder), not run", b.Line)
		case strings.Contains(b.Code, "files.") || strings.Contains(b.Code, "memory."):
			t.Logf("README line %d: the gateway's script, run by examples/gateway", b.Line)
		default:
			blocks = append(blocks, b)
		}
	}
	if len(blocks) < 5 {
		t.Fatalf("found %d complete BrakingLab scripts in the README, want at least 5", len(blocks))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := readmeClient(t, ctx)
	for _, b := range blocks {
		t.Run(fmt.Sprintf("line%d", b.Line), func(t *testing.T) {
			value, logs := executeCode(t, ctx, cs, b.Code)
			if len(value) == 0 || string(value) == "null" || strings.HasPrefix(string(value), `"No `) {
				t.Errorf("returned %s; logs:\n%s", value, logs)
			}
		})
	}
}

// readmeClient starts the server without authentication and connects a
// client that accepts every question (the race plan generates a
// strategy, which asks the user); the session ends with the test.
func readmeClient(t *testing.T, ctx context.Context) *mcp.ClientSession {
	t.Helper()
	s := startServer(t, "-insecure-no-auth")
	client := mcp.NewClient(&mcp.Implementation{Name: "brakinglab-e2e-readme", Version: "1.0.0"}, (&mcptest.Asker{Action: "accept"}).Options())
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.MCPURL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
