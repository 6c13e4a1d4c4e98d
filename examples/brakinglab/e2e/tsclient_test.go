package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/internal/tsclienttest"
)

// TestTypeScriptSDKClient runs testdata/ts-client.mjs: the official
// @modelcontextprotocol/sdk client with its OAuth provider registers,
// authorizes with PKCE, signs in and consents, lists tools and runs
// execute_code against BrakingLab.
func TestTypeScriptSDKClient(t *testing.T) {
	tsclienttest.Need(t, tsclienttest.SDK)
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := tsclienttest.Run(t, ctx, "testdata/ts-client.mjs", []string{"MCP_URL=" + s.MCPURL, "MCP_USER=demo", "MCP_PASSWORD=" + s.Users["demo"]})
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
