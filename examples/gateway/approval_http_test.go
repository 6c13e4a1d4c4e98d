package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

// tsRun is one execute_code call as testdata/ts-approval.mjs reports it.
type tsRun struct {
	IsError    bool
	Structured struct {
		Result json.RawMessage
		Error  struct{ Kind, Message string }
		Writes []json.RawMessage
	}
	Text string
}

// The gateway binary over Streamable HTTP with tokens from an issuer, and
// the official TypeScript SDK client on its default revision (2025-11-25)
// declaring elicitation: deleting an entity in server-memory (a
// destructive tool) asks the user once, in the call. Accept deletes it,
// once; decline leaves it.
func TestGatewayHTTPTypeScriptClientApproval(t *testing.T) {
	need(t, filepath.Join(jsModules, "@modelcontextprotocol", "sdk", "package.json"))
	bin := buildGateway(t)
	for _, action := range []string{"accept", "decline"} {
		t.Run(action, func(t *testing.T) {
			f := newFixture(t)
			issuer := oauthmetatest.NewIssuer(t, nil)
			url := startGateway(t, bin, "-config", f.config, "-addr", "127.0.0.1:0", "-issuer", issuer.URL)
			tok := issuer.Mint(url, oauthmetatest.WithClaim("sub", "ts-user"))

			dir := t.TempDir()
			script, err := os.ReadFile(filepath.Join("testdata", "ts-approval.mjs"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "client.mjs"), script, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(jsModules, filepath.Join(dir, "node_modules")); err != nil {
				t.Fatal(err)
			}
			cmd := exec.CommandContext(t.Context(), nodeBin(), filepath.Join(dir, "client.mjs"))
			cmd.Env = append(os.Environ(), "GATEWAY_URL="+url, "GATEWAY_TOKEN="+tok, "MCP_ACTION="+action)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("client: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
			}
			var got struct {
				ProtocolVersion         string
				SessionID               *string
				Asked                   []string
				Created, Deleted, Graph tsRun
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("client output %q: %v", out, err)
			}
			if got.ProtocolVersion != "2025-11-25" || got.SessionID == nil || *got.SessionID == "" {
				t.Fatalf("revision %q, session %v: want 2025-11-25 in a session", got.ProtocolVersion, got.SessionID)
			}
			if got.Created.IsError || got.Graph.IsError {
				t.Fatalf("create: %s\nread: %s", got.Created.Text, got.Graph.Text)
			}
			if len(got.Asked) != 1 || !strings.Contains(got.Asked[0], "memory.delete_entities (MUTATING)") || !strings.Contains(got.Asked[0], "draft") {
				t.Fatalf("asked %q, want once about deleting draft", got.Asked)
			}
			names := string(got.Graph.Structured.Result)
			if action == "accept" {
				if got.Deleted.IsError || string(got.Deleted.Structured.Result) != `"deleted"` || len(got.Deleted.Structured.Writes) != 1 || strings.Contains(names, `"draft"`) {
					t.Fatalf("accept: %s; writes %d; graph %s", got.Deleted.Text, len(got.Deleted.Structured.Writes), names)
				}
				return
			}
			if !got.Deleted.IsError || got.Deleted.Structured.Error.Kind != "APPROVAL_DECLINED" || !strings.Contains(names, `"draft"`) {
				t.Fatalf("decline: %s; graph %s", got.Deleted.Text, names)
			}
		})
	}
}
