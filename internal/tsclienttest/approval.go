package tsclienttest

import (
	"context"
	_ "embed"
	"encoding/json"
	"testing"
)

// approvalScript is the client that [RunApproval] runs.
//
//go:embed ts-approval.mjs
var approvalScript []byte

// Approval is what the approval client saw.
type Approval struct {
	ProtocolVersion string   // the protocol revision the client negotiated
	SessionID       *string  // the MCP session's id; nil without a session
	Asked           []string // the messages of the questions, in order
	Calls           []Call   // one per code, in order

	// Call is the last of Calls: with one code, the only one.
	Call `json:"-"`
}

// String returns a as the client printed it, for failure messages.
func (a Approval) String() string {
	b, _ := json.Marshal(a)
	return string(b)
}

// Call is the result of one execute_code call.
type Call struct {
	IsError bool
	// Result is the structured content.
	Result struct {
		Result json.RawMessage
		Error  struct{ Kind, Message string }
		Writes []json.RawMessage
	}
	Text string // the text content, one line per part
}

// RunApproval runs the official TypeScript SDK client, on the SDK's
// default protocol revision and declaring form elicitation, against the
// MCP endpoint at url with a bearer token. In one connection it runs each
// of codes with execute_code, in order, answers every question with
// action ("accept", "decline" or "cancel"), and then ends its session.
// It needs Node and the SDK, as [Command] does.
func RunApproval(tb testing.TB, ctx context.Context, url, token, action string, codes ...string) Approval {
	tb.Helper()
	Need(tb, SDK)
	env := []string{"MCP_URL=" + url, "MCP_TOKEN=" + token, "MCP_ACTION=" + action}
	out := output(tb, command(tb, ctx, "ts-approval.mjs", approvalScript, env, codes))
	var got Approval
	if err := json.Unmarshal(out, &got); err != nil {
		tb.Fatalf("ts-approval.mjs printed %s: %v", out, err)
	}
	if len(got.Calls) != len(codes) {
		tb.Fatalf("ts-approval.mjs made %d calls, want %d: %s", len(got.Calls), len(codes), out)
	}
	if len(got.Calls) > 0 {
		got.Call = got.Calls[len(got.Calls)-1]
	}
	return got
}
