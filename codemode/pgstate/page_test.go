package pgstate_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/internal/pagetest"
	"github.com/brakinglab/codemode-go/internal/pgtest"
	"github.com/brakinglab/codemode-go/sandbox"
)

// pageReplica is a server whose notes.deleteNote needs approval and whose
// notes.createNote does not, with the approval page at /approve/ and all
// approval state in PostgreSQL. It returns its base URL.
func pageReplica(t *testing.T, dbURL string, key []byte, creates, deletes *atomic.Int64) string {
	t.Helper()
	st := openState(t, dbURL)
	hs := httptest.NewUnstartedServer(nil)
	base := "http://" + hs.Listener.Addr().String()
	srv, err := codemode.New(notesCatalog(t, creates, deletes), &codemode.Options{
		Principal: &catalog.Principal{Subject: "alice", ClientID: "cli"},
		Approvals: approval.Options{Key: key, Spent: st.SpentApprovals(), Page: &approval.Page{
			URL:          base + "/approve/",
			Store:        st.PendingApprovals(),
			Authenticate: pagetest.CookieAuth,
		}},
		Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
		Audit:   codemode.AuditOptions{Sink: codemode.AuditFunc(func(context.Context, codemode.AuditEvent) {})},
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", srv.Handler())
	mux.Handle("/approve/", srv.ApprovalHandler())
	hs.Config.Handler = mux
	hs.Start()
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return base
}

func structuredLink(t *testing.T, res *mcp.CallToolResult) (kind, link string) {
	t.Helper()
	m, _ := res.StructuredContent.(map[string]any)
	e, _ := m["error"].(map[string]any)
	kind, _ = e["kind"].(string)
	link, _ = m["approvalUrl"].(string)
	return kind, link
}

// The link given on replica A is served by replica B, answered there,
// and the re-run on B resumes A's execution: the copy made before the
// approval is not made again, the approved delete runs once.
func TestApprovalPageAcrossReplicas(t *testing.T) {
	db := pgtest.NewDatabase(t)
	key := []byte(strings.Repeat("k", 32))
	var creates, deletes atomic.Int64
	baseA := pageReplica(t, db, key, &creates, &deletes)
	baseB := pageReplica(t, db, key, &creates, &deletes)
	a, b := mcptest.ConnectHTTP(t, baseA+"/mcp", "", "2026-07-28", nil), mcptest.ConnectHTTP(t, baseB+"/mcp", "", "2026-07-28", nil)
	const code = `await notes.copyNote({id: 7}); return await notes.deleteNote({id: 7});`

	res := callWith(t, a, code, "", "")
	kind, link := structuredLink(t, res)
	if kind != "APPROVAL_PENDING" || !strings.HasPrefix(link, baseA+"/approve/") || creates.Load() != 1 || deletes.Load() != 0 {
		t.Fatalf("first run on A: %s", mcptest.Text(res))
	}
	onB := baseB + "/approve/" + link[len(baseA+"/approve/"):]
	alice := pagetest.Browser{Subject: "alice"}
	resp, page := alice.Do(t, "GET", onB, nil, nil)
	token := pagetest.CSRF(page)
	if resp.StatusCode != http.StatusOK || token == "" || !strings.Contains(page, "notes.deleteNote") || !strings.Contains(page, "notes.copyNote(") {
		t.Fatalf("page on B: %d\n%s", resp.StatusCode, page)
	}
	if resp, page := alice.Do(t, "POST", onB, url.Values{"csrf": {token}, "action": {"accept"}}, nil); resp.StatusCode != http.StatusOK || !strings.Contains(page, "Accepted.") {
		t.Fatalf("accept on B: %d\n%s", resp.StatusCode, page)
	}
	res = callWith(t, b, code, "", "")
	if res.IsError || creates.Load() != 1 || deletes.Load() != 1 {
		t.Fatalf("re-run on B: %s (creates %d deletes %d)", mcptest.Text(res), creates.Load(), deletes.Load())
	}
	// A sees the approval used: the same code there is a new execution
	// that asks again, and the used approval deletes nothing.
	res = callWith(t, a, code, "", "")
	if kind, l := structuredLink(t, res); kind != "APPROVAL_PENDING" || l == link || deletes.Load() != 1 {
		t.Fatalf("second run on A: %s (deletes %d)", mcptest.Text(res), deletes.Load())
	}
}

// The store: the first answer wins and an expired approval takes none.
func TestPendingApprovalsStore(t *testing.T) {
	db := pgtest.NewDatabase(t)
	ctx := context.Background()
	st := openState(t, db)
	s := st.PendingApprovals()
	now := time.Now().Truncate(time.Microsecond)
	for i, id := range []string{"old", "new"} {
		if err := s.Put(ctx, state.PendingApproval{ID: id, Match: "m", Subject: "alice", Created: now.Add(time.Duration(i) * time.Second), Expires: now.Add(time.Minute), State: []byte("{}")}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Put(ctx, state.PendingApproval{ID: "new", Match: "m", Created: now, Expires: now, State: []byte("{}")}); err == nil {
		t.Fatal("an id stored twice")
	}
	if p, err := s.Latest(ctx, "m"); err != nil || p == nil || p.ID != "new" || p.Subject != "alice" || !p.Expires.Equal(now.Add(time.Minute)) {
		t.Fatalf("Latest: %+v %v", p, err)
	}
	if p, err := s.Get(ctx, "none"); p != nil || err != nil {
		t.Fatalf("Get(none): %+v %v", p, err)
	}
	if ok, err := s.Answer(ctx, "new", "accept", now); !ok || err != nil {
		t.Fatalf("first answer: %v %v", ok, err)
	}
	if ok, _ := s.Answer(ctx, "new", "decline", now); ok {
		t.Fatal("a second answer was taken")
	}
	if ok, _ := s.Answer(ctx, "old", "accept", now.Add(time.Hour)); ok {
		t.Fatal("an expired approval took an answer")
	}
	if p, _ := s.Get(ctx, "new"); p.Answer != "accept" {
		t.Fatalf("answer %q", p.Answer)
	}
}
