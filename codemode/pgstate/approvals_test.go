package pgstate_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/internal/pgtest"
	"github.com/brakinglab/codemode-go/sandbox"
)

// notesCatalog has notes.deleteNote, which needs approval and counts its
// runs in deletes, and, when creates is not nil, notes.copyNote, which
// does not and counts its runs in creates.
func notesCatalog(t *testing.T, creates, deletes *atomic.Int64) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.New("notes", nil)
	if err != nil {
		t.Fatal(err)
	}
	type idIn struct {
		ID int `json:"id" validate:"required"`
	}
	catalog.MustAdd(cat, catalog.Func[idIn, int]{
		Name: "deleteNote", Tier: catalog.Mutating, Approval: catalog.ApprovalRequired, Description: "Deletes a note.",
		Handler: func(ctx context.Context, in idIn) (int, error) { return int(deletes.Add(1)), nil },
	})
	if creates != nil {
		catalog.MustAdd(cat, catalog.Func[idIn, int]{
			Name: "copyNote", Tier: catalog.Mutating, Description: "Copies a note.",
			Handler: func(ctx context.Context, in idIn) (int, error) { return int(creates.Add(1)), nil },
		})
	}
	return cat
}

// approvalReplica is a server whose notes.deleteNote needs approval,
// sharing the sealing key and the spent approvals through PostgreSQL.
func approvalReplica(t *testing.T, dbURL string, key []byte, deletes *atomic.Int64) string {
	t.Helper()
	st := openState(t, dbURL)
	srv, err := codemode.New(notesCatalog(t, nil, deletes), &codemode.Options{
		Principal: &catalog.Principal{Subject: "alice", ClientID: "cli"},
		Approvals: approval.Options{Key: key, Spent: st.SpentApprovals()},
		Sandbox:   codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
		Audit:     codemode.AuditOptions{Sink: codemode.AuditFunc(func(context.Context, codemode.AuditEvent) {})},
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return hs.URL + "/mcp"
}

// connectMRTR connects on revision 2026-07-28 with multi-round-trip
// requests left to the test (callWith answers them).
func connectMRTR(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	return mcptest.ConnectHTTP(t, url, "", "2026-07-28", &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
}

func callWith(t *testing.T, cs *mcp.ClientSession, code, state, action string) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": code}, RequestState: state}
	if state != "" {
		p.InputResponses = mcp.InputResponseMap{"approval": &mcp.ElicitResult{Action: action}}
	}
	res, err := cs.CallTool(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// An approval asked for on one replica is spent once across both: the
// first use on replica B runs the deletion, the same request retried on
// replica A gets B's outcome without running anything, and another
// answer with the same state is refused on either.
func TestApprovalSpentOnceAcrossReplicas(t *testing.T) {
	db := pgtest.NewDatabase(t)
	key := []byte(strings.Repeat("k", 32))
	var deletes atomic.Int64
	a := connectMRTR(t, approvalReplica(t, db, key, &deletes))
	b := connectMRTR(t, approvalReplica(t, db, key, &deletes))
	const code = `return await notes.deleteNote({id: 7});`

	pend := callWith(t, a, code, "", "")
	if !pend.NeedsInput() || pend.RequestState == "" {
		t.Fatalf("want an input-required result, got %s", mcptest.Text(pend))
	}
	first := callWith(t, b, code, pend.RequestState, "accept")
	if first.IsError || deletes.Load() != 1 {
		t.Fatalf("first use on B: %s (deletes %d)", mcptest.Text(first), deletes.Load())
	}
	retried := callWith(t, a, code, pend.RequestState, "accept")
	if retried.IsError || mcptest.Text(retried) != mcptest.Text(first) || deletes.Load() != 1 {
		t.Fatalf("retry on A: %s (deletes %d)", mcptest.Text(retried), deletes.Load())
	}
	for _, cs := range []*mcp.ClientSession{a, b} {
		other := callWith(t, cs, code, pend.RequestState, "decline")
		if !other.IsError || !strings.Contains(mcptest.Text(other), "APPROVAL_INVALID") {
			t.Fatalf("another answer with a spent state: %s", mcptest.Text(other))
		}
	}
	if deletes.Load() != 1 {
		t.Fatalf("deleteNote ran %d times, want once", deletes.Load())
	}
}
