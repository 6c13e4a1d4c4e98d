package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestTwoReplicasSpendApprovalOnce: with two replicas sharing the
// approval key and one PostgreSQL database behind nginx (round-robin), a
// sealed approval is spent once. Its first use deletes the race event;
// the same request sent again lands on the other replica and gets the
// first outcome without running anything; another answer with the same
// state is refused on both replicas.
func TestTwoReplicasSpendApprovalOnce(t *testing.T) {
	rs := startApprovalReplicas(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	token := accessToken(t, rs.front, "demo")
	cs := tokenClient(t, ctx, rs.front.MCPURL, token, &mcp.Implementation{Name: "replica-approval", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, fmt.Errorf("not asked: multi round-trip is handled by the test")
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	id := newRace(t, ctx, cs, "Spent once")
	code := fmt.Sprintf(`const d = await brakinglab.deleteRaceEvent({raceEventId: %q}); return d.deleted;`, id)
	call := func(state, action string) *mcp.CallToolResult {
		t.Helper()
		p := &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{"code": code}}
		if state != "" {
			p.RequestState = state
			p.InputResponses = mcp.InputResponseMap{"approval": &mcp.ElicitResult{Action: action, Content: map[string]any{}}}
		}
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	pending := call("", "")
	if !pending.NeedsInput() || pending.RequestState == "" {
		t.Fatalf("want an input-required result, got %s", toolText(pending))
	}
	first := call(pending.RequestState, "accept")
	if first.IsError || !strings.Contains(toolText(first), "true") {
		t.Fatalf("first use: %s", toolText(first))
	}
	again := call(pending.RequestState, "accept")
	if again.IsError || toolText(again) != toolText(first) {
		t.Fatalf("the same request again: %s\nfirst: %s", toolText(again), toolText(first))
	}
	for range 2 {
		if res := call(pending.RequestState, "decline"); !res.IsError || !strings.HasPrefix(toolText(res), "APPROVAL_INVALID") {
			t.Fatalf("another answer with a spent state: %s", toolText(res))
		}
	}
	// The four uses of the state went to both replicas.
	seen := map[string]bool{}
	for _, l := range rs.proxy.lastUpstreams(t, "POST", "/mcp", 4) {
		seen[l[0]] = true
	}
	if len(seen) != 2 {
		t.Fatalf("the uses of the state reached %v, want both replicas", seen)
	}
}
