package codemode_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/logtest"
	"github.com/brakinglab/codemode-go/internal/tsclienttest"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

// initBody is an initialize request of revision version, declaring
// elicitation when asked to.
func initBody(version string, elicitation bool) string {
	caps := `{}`
	if elicitation {
		caps = `{"elicitation":{"form":{}}}`
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":"raw","version":"1"}}}`, version, caps)
}

// openRaw initializes a 2025-11-25 client declaring elicitation with
// token and returns the session id the server handed out ("" for none).
func openRaw(t *testing.T, ts *testServer, token string) string {
	t.Helper()
	resp := rawPost(t, ts.URL, initBody("2025-11-25", true), mcpHeaders(token))
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %d", resp.StatusCode)
	}
	id := resp.Header.Get("Mcp-Session-Id")
	if id != "" {
		h := mcpHeaders(token)
		h["Mcp-Session-Id"], h["Mcp-Protocol-Version"] = id, "2025-11-25"
		if r := rawPost(t, ts.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h); r.StatusCode != http.StatusAccepted {
			t.Fatalf("notifications/initialized: %d", r.StatusCode)
		}
	}
	return id
}

// inSession sends method (a request, or a GET or DELETE with an empty
// body) in session id with token and returns the status and body.
func inSession(t *testing.T, ts *testServer, httpMethod, token, id, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(httpMethod, ts.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if httpMethod == http.MethodGet && resp.StatusCode == http.StatusOK {
		return resp.StatusCode, ""
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// One endpoint, default options: a client before 2026-07-28 that
// declares elicitation (or the MCP Apps extension) gets a session and is
// asked during the call; one that declares neither is served statelessly
// and told exactly why it cannot be asked; a 2026-07-28 client is served
// statelessly and asked with an input-required result, while the other
// client's session is open.
func TestSessionsForClientsThatNeedThem(t *testing.T) {
	ts, b := startApprovals(t, nil)
	e := &elicitor{action: always("accept")}
	old := ts.connectAt(t, ts.token("alice"), "2025-11-25", &mcp.ClientOptions{ElicitationHandler: e.handle})
	if old.ID() == "" {
		t.Fatal("a 2025-11-25 client declaring elicitation got no session")
	}
	id := b.add("alice", "Monza", "cancelled")
	res := run(t, old, deleteCancelled)
	if res.IsError || len(e.asked()) != 1 || !sameInts(b.deleted("alice"), []int{id}) || b.deletes.Load() != 1 {
		t.Fatalf("2025-11-25 in a session: %s; asked %d times; deleted %v", text(res), len(e.asked()), b.deleted("alice"))
	}

	// 2026-07-28 on the same endpoint, with the session above still open.
	newer := ts.connectAt(t, ts.token("alice"), "2026-07-28", &mcp.ClientOptions{ElicitationHandler: e.handle})
	if newer.ID() != "" {
		t.Fatalf("a 2026-07-28 client got session %q", newer.ID())
	}
	if n := codemode.OpenSessions(ts.Server); n != 1 {
		t.Fatalf("%d sessions open, want the 2025-11-25 client's", n)
	}
	id2 := b.add("alice", "Imola", "cancelled")
	res = run(t, newer, deleteCancelled)
	if res.IsError || len(e.asked()) != 2 || !sameInts(b.deleted("alice"), []int{id, id2}) || b.deletes.Load() != 2 {
		t.Fatalf("2026-07-28: %s; asked %d times; deleted %v", text(res), len(e.asked()), b.deleted("alice"))
	}
	if st := ts.Stats(); st.Executions["APPROVAL_REQUIRED"] != 1 {
		t.Fatalf("the 2026-07-28 call was not asked with an input-required result: %+v", st.Executions)
	}

	// Declaring neither: no session, and the reason.
	plain := ts.connectAt(t, ts.token("alice"), "2025-11-25", nil)
	if plain.ID() != "" {
		t.Fatalf("a client without elicitation got session %q", plain.ID())
	}
	b.add("alice", "Spa", "cancelled")
	st := structuredOf(t, run(t, plain, deleteCancelled))
	if st.Error == nil || st.Error.Kind != "APPROVAL_UNAVAILABLE" || !strings.Contains(st.Error.Message, "this request came without a session: on protocol revision 2025-11-25 the server can send the client a request during a call only within a session (revision 2026-07-28 needs none), and the server opens one at initialize for a client that declares the elicitation capability; this client did not declare it there") {
		t.Fatalf("without elicitation: %+v", st.Error)
	}

	// The MCP Apps extension alone opens one too (the chart view is
	// offered per session).
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension("io.modelcontextprotocol/ui", map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}})
	apps := ts.connectAt(t, ts.token("alice"), "2025-11-25", &mcp.ClientOptions{Capabilities: caps})
	if apps.ID() == "" {
		t.Fatal("a client declaring MCP Apps got no session")
	}
}

// A session belongs to the subject and OAuth client that opened it:
// another subject, or the same subject through another client, gets the
// same 404 as for an unknown id, on every method, and the session still
// serves its owner; the stack in front (authentication, the request
// limit) applies to session requests as to the others.
func TestSessionRefusedToAnotherPrincipal(t *testing.T) {
	ts, _ := startApprovals(t, func(o *codemode.Options) { o.RateLimits.RequestBurst = 12 })
	alice := ts.token("alice")
	id := openRaw(t, ts, alice)
	if id == "" {
		t.Fatal("no session")
	}
	bob := ts.token("bob")
	aliceElsewhere := ts.issuer.Mint(ts.Resource, oauthmetatest.WithClaim("sub", "alice"), oauthmetatest.WithClaim("client_id", "another-client"))
	for name, tok := range map[string]string{"bob": bob, "alice through another client": aliceElsewhere} {
		for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			body := ""
			if m == http.MethodPost {
				body = listToolsBody
			}
			if code, got := inSession(t, ts, m, tok, id, body); code != http.StatusNotFound || strings.TrimSpace(got) != "session not found" {
				t.Errorf("%s, %s with alice's session: %d %q, want 404 session not found", name, m, code, got)
			}
		}
	}
	if code, got := inSession(t, ts, http.MethodPost, bob, "NOSUCHSESSION", listToolsBody); code != http.StatusNotFound || strings.TrimSpace(got) != "session not found" {
		t.Errorf("unknown id: %d %q", code, got)
	}
	if code, _ := inSession(t, ts, http.MethodPost, "", id, listToolsBody); code != http.StatusUnauthorized {
		t.Errorf("no token with alice's session: %d, want 401", code)
	}
	if code, got := inSession(t, ts, http.MethodPost, alice, id, listToolsBody); code != http.StatusOK || !strings.Contains(got, codemode.ToolName) {
		t.Fatalf("alice in her session: %d %s", code, got)
	}
	// Her requests spend her request budget (burst 12): the session is
	// not a way around the limit.
	limited := 0
	for range 12 {
		if code, _ := inSession(t, ts, http.MethodPost, alice, id, listToolsBody); code == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited == 0 {
		t.Fatal("session requests were not limited")
	}
	if code, _ := inSession(t, ts, http.MethodDelete, ts.token("carol"), "x", ""); code != http.StatusNotFound {
		t.Fatalf("DELETE of an unknown session: %d", code)
	}
	if n := codemode.OpenSessions(ts.Server); n != 1 {
		t.Fatalf("%d sessions, want alice's", n)
	}
}

// A principal holds at most MaxSessionsPerPrincipal sessions: one more
// closes the one idle longest, and other principals keep theirs.
func TestSessionsPerPrincipalCapped(t *testing.T) {
	ts, _ := startApprovals(t, func(o *codemode.Options) { o.HTTP.MaxSessionsPerPrincipal = 2 })
	alice, bob := ts.token("alice"), ts.token("bob")
	s1 := openRaw(t, ts, alice)
	s2 := openRaw(t, ts, alice)
	b1 := openRaw(t, ts, bob)
	b2 := openRaw(t, ts, bob)
	time.Sleep(10 * time.Millisecond)
	if code, _ := inSession(t, ts, http.MethodPost, alice, s1, listToolsBody); code != http.StatusOK {
		t.Fatalf("s1: %d", code)
	}
	s3 := openRaw(t, ts, alice)
	deadline := time.Now().Add(10 * time.Second)
	for codemode.OpenSessions(ts.Server) != 4 {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions open, want 4", codemode.OpenSessions(ts.Server))
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, c := range []struct {
		tok, id string
		want    int
	}{{alice, s1, 200}, {alice, s2, 404}, {alice, s3, 200}, {bob, b1, 200}, {bob, b2, 200}} {
		if code, _ := inSession(t, ts, http.MethodPost, c.tok, c.id, listToolsBody); code != c.want {
			t.Errorf("session %s: %d, want %d", c.id, code, c.want)
		}
	}
}

// With SessionIDPrefix every session id starts with this replica's
// prefix; a request naming another replica's session gets 404 saying
// how to route it, and the first such request is logged.
func TestSessionIDPrefix(t *testing.T) {
	logs := &logtest.Buffer{}
	ts, _ := startApprovals(t, func(o *codemode.Options) {
		o.HTTP.SessionIDPrefix = "r1."
		o.Logger = slog.New(slog.NewTextHandler(logs, nil))
	})
	alice := ts.token("alice")
	e := &elicitor{action: always("accept")}
	cs := ts.connectAt(t, alice, "2025-11-25", &mcp.ClientOptions{ElicitationHandler: e.handle})
	if !strings.HasPrefix(cs.ID(), "r1.") || len(cs.ID()) < 20 {
		t.Fatalf("session id %q, want r1. and go-sdk's random id", cs.ID())
	}
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	other := "r2." + strings.TrimPrefix(cs.ID(), "r1.")
	for range 2 {
		code, body := inSession(t, ts, http.MethodPost, alice, other, listToolsBody)
		if code != http.StatusNotFound || !strings.Contains(body, `this server's session ids start with "r1."`) {
			t.Fatalf("another replica's session: %d %q", code, body)
		}
	}
	if n := strings.Count(logs.String(), "a request named a session this process did not open"); n != 1 {
		t.Fatalf("logged %d times, want once:\n%s", n, logs)
	}
	// go-sdk's own id, without the prefix, is not a session either.
	if code, _ := inSession(t, ts, http.MethodPost, alice, strings.TrimPrefix(cs.ID(), "r1."), listToolsBody); code != http.StatusNotFound {
		t.Fatalf("the id without its prefix: %d", code)
	}
}

// Close closes the sessions the server's endpoint holds.
func TestCloseClosesSessions(t *testing.T) {
	ts, _ := startApprovals(t, nil)
	alice := ts.token("alice")
	id := openRaw(t, ts, alice)
	if err := ts.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for codemode.OpenSessions(ts.Server) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the session outlived Close")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code, _ := inSession(t, ts, http.MethodPost, alice, id, listToolsBody); code != http.StatusNotFound {
		t.Fatalf("after Close: %d", code)
	}
}

// New refuses contradictory session options, and with Options.HTTP.Stateless
// logs once that clients before 2026-07-28 cannot be asked over HTTP.
func TestSessionOptions(t *testing.T) {
	b := newRaceBook(t)
	for _, tc := range []struct {
		name string
		set  func(*codemode.Options)
		want string
	}{
		{"both", func(o *codemode.Options) { o.HTTP.Stateful, o.HTTP.Stateless = true, true }, "Options.HTTP.Stateful and Options.HTTP.Stateless are both set"},
		{"prefix chars", func(o *codemode.Options) { o.HTTP.SessionIDPrefix = "r 1" }, `Options.HTTP.SessionIDPrefix "r 1"`},
		{"prefix length", func(o *codemode.Options) { o.HTTP.SessionIDPrefix = strings.Repeat("r", 33) }, "at most 32"},
		{"prefix without sessions", func(o *codemode.Options) { o.HTTP.Stateless, o.HTTP.SessionIDPrefix = true, "r1" }, "opens no session"},
	} {
		p := principal("alice")
		o := &codemode.Options{Principal: &p}
		tc.set(o)
		if _, err := codemode.New(b.cat, o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	for _, stateless := range []bool{false, true} {
		logs := &logtest.Buffer{}
		p := principal("alice")
		o := &codemode.Options{Principal: &p, Logger: slog.New(slog.NewTextHandler(logs, nil)), HTTP: codemode.HTTPOptions{Stateless: stateless}}
		o.Approvals.Tiers = []catalog.Tier{catalog.Mutating}
		withPool(t, o, 1)
		srv, err := codemode.New(b.cat, o)
		if err != nil {
			t.Fatal(err)
		}
		srv.Handler()
		srv.Close()
		const warning = "but Options.HTTP.Stateless opens no HTTP session, so over HTTP a client on a protocol revision before 2026-07-28 (2025-11-25 and earlier) cannot be asked during a call: its calls that need approval fail with APPROVAL_UNAVAILABLE"
		if n := strings.Count(logs.String(), warning); n != map[bool]int{false: 0, true: 1}[stateless] {
			t.Errorf("Stateless %v: the warning logged %d times:\n%s", stateless, n, logs)
		}
	}
}

// The official TypeScript SDK client on its default revision
// (2025-11-25) against the default endpoint: it declared elicitation, so
// it gets a session and is asked once. Accepting deletes the batch once;
// declining deletes nothing.
func TestTypeScriptClientAskedOnDefaultEndpoint(t *testing.T) {
	for _, action := range []string{"accept", "decline"} {
		t.Run(action, func(t *testing.T) {
			ts, b := startApprovals(t, nil)
			ids := []int{b.add("alice", "Monza", "cancelled"), b.add("alice", "Imola", "cancelled")}
			b.add("alice", "Spa", "entered")
			got := tsclienttest.RunApproval(t, t.Context(), ts.URL, ts.token("alice"), action, deleteCancelled)
			if got.ProtocolVersion != "2025-11-25" || len(got.Asked) != 1 || !strings.Contains(got.Asked[0], "asks to make 2 changes in races:") {
				t.Fatalf("client saw %s", got)
			}
			if action == "accept" {
				if got.IsError || string(got.Result.Result) != "2" || !sameInts(b.deleted("alice"), ids) || b.deletes.Load() != 2 {
					t.Fatalf("accept: %s; deleted %v (%d runs)", got, b.deleted("alice"), b.deletes.Load())
				}
				return
			}
			if !got.IsError || got.Result.Error.Kind != "APPROVAL_DECLINED" || b.deletes.Load() != 0 {
				t.Fatalf("decline: %s; %d deletions", got, b.deletes.Load())
			}
		})
	}
}

// A host serving its own go-sdk server: behind Middleware,
// StreamableHTTPHandler asks a 2025-11-25 client that declared
// elicitation during the call, as Handler does; the host's own stateless
// go-sdk handler cannot, and the model reads exactly why.
func TestHostEndpointAsks(t *testing.T) {
	for _, own := range []bool{false, true} {
		t.Run(map[bool]string{false: "StreamableHTTPHandler", true: "own stateless handler"}[own], func(t *testing.T) {
			b := newRaceBook(t)
			p := principal("alice")
			o := &codemode.Options{Principal: &p, Audit: codemode.AuditOptions{Sink: codemode.NoAudit}}
			o.Approvals.Tiers = []catalog.Tier{catalog.Mutating}
			withPool(t, o, 1)
			cm, err := codemode.New(b.cat, o)
			if err != nil {
				t.Fatal(err)
			}
			host := mcp.NewServer(&mcp.Implementation{Name: "host", Version: "1"}, nil)
			cm.AddTo(host)
			var endpoint http.Handler = cm.StreamableHTTPHandler(host, nil)
			if own {
				endpoint = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return host }, &mcp.StreamableHTTPOptions{Stateless: true})
			}
			hs := httptest.NewServer(cm.Middleware(endpoint))
			t.Cleanup(func() {
				hs.Close()
				cm.Close()
			})
			id := b.add("alice", "Monza", "cancelled")
			e := &elicitor{action: always("accept")}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: e.handle}).Connect(t.Context(),
				&mcp.StreamableClientTransport{Endpoint: hs.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res := run(t, cs, deleteCancelled)
			if !own {
				if res.IsError || len(e.asked()) != 1 || !sameInts(b.deleted("alice"), []int{id}) || cs.ID() == "" {
					t.Fatalf("%s; asked %d; deleted %v; session %q", text(res), len(e.asked()), b.deleted("alice"), cs.ID())
				}
				return
			}
			st := structuredOf(t, res)
			if st.Error == nil || st.Error.Kind != "APPROVAL_UNAVAILABLE" || !strings.Contains(st.Error.Message, "and the host serves this endpoint with a stateless handler that opens no session") || b.deletes.Load() != 0 {
				t.Fatalf("own stateless handler: %s", text(res))
			}
		})
	}
}
