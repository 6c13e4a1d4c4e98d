package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	s := startServer(t, "-insecure-no-auth")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The race plan generates a strategy, which asks the user: accept.
	client := mcp.NewClient(&mcp.Implementation{Name: "brakinglab-e2e-readme", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.MCPURL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
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
