package codemode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/pagetest"
	"github.com/brakinglab/codemode-go/internal/tsclienttest"
)

// startPage serves a raceBook whose MUTATING calls need approval, with
// the approval page at /approve/ signed in by pagetest.CookieAuth.
func startPage(t *testing.T, configure func(*codemode.Options)) (*testServer, *raceBook) {
	t.Helper()
	return startApprovals(t, func(o *codemode.Options) {
		o.Approvals.Page = &approval.Page{Authenticate: pagetest.CookieAuth}
		if configure != nil {
			configure(o)
		}
	})
}

// browser is a user's browser signed in as sub ("" for none); every
// page it is sent must forbid framing.
type browser struct{ sub string }

func (b browser) do(t *testing.T, method, link string, form url.Values, header map[string]string) (int, string) {
	t.Helper()
	resp, page := pagetest.Browser{Subject: b.sub}.Do(t, method, link, form, header)
	if got := resp.Header.Get("Content-Security-Policy"); !strings.Contains(got, "frame-ancestors 'none'") {
		t.Errorf("%s %s: Content-Security-Policy %q", method, link, got)
	}
	return resp.StatusCode, page
}

func (b browser) get(t *testing.T, link string) (int, string) { return b.do(t, "GET", link, nil, nil) }

// answer opens link and presses the button action.
func (b browser) answer(t *testing.T, link, action string) string {
	t.Helper()
	code, page := b.get(t, link)
	token := pagetest.CSRF(page)
	if code != http.StatusOK || token == "" {
		t.Fatalf("GET %s: %d\n%s", link, code, page)
	}
	code, page = b.do(t, "POST", link, url.Values{"csrf": {token}, "action": {action}}, nil)
	if code != http.StatusOK {
		t.Fatalf("POST %s: %d\n%s", link, code, page)
	}
	return page
}

// pendingLink runs code on a client without elicitation and returns the
// approval link it was given.
func pendingLink(t *testing.T, cs *mcp.ClientSession, code string) string {
	t.Helper()
	res := run(t, cs, code)
	st := structuredOf(t, res)
	if st.Error == nil || st.Error.Kind != "APPROVAL_PENDING" || st.ApprovalURL == "" || !strings.Contains(st.Error.Message, st.ApprovalURL) {
		t.Fatalf("want APPROVAL_PENDING with a link, got %s", text(res))
	}
	return st.ApprovalURL
}

// The whole path for a client without elicitation: the create before the
// approval runs once, the page shows the call, the write already made
// and the client, a re-run before the answer runs nothing, and the re-run
// after accepting makes the approved delete once without repeating the
// create.
func TestApprovalPageAccept(t *testing.T) {
	ts, b := startPage(t, nil)
	id := b.add("alice", "Monza", "cancelled")
	cs := ts.connectAt(t, ts.token("alice"), "2026-07-28", nil)
	code := fmt.Sprintf(createThenDelete, id)
	link := pendingLink(t, cs, code)
	if b.creates.Load() != 1 || b.deletes.Load() != 0 {
		t.Fatalf("creates %d deletes %d after the first run", b.creates.Load(), b.deletes.Load())
	}

	status, page := browser{"alice"}.get(t, link)
	for _, want := range []string{"Test Client (client test-client) asks to make 1 change in races", "races.deleteRace", fmt.Sprintf("id: %d", id), "races.createRace(", "Accept", "Decline"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}

	res := run(t, cs, code)
	if st := structuredOf(t, res); st.Error == nil || st.Error.Kind != "APPROVAL_PENDING" || !strings.Contains(st.Error.Message, "has not answered yet") || st.ApprovalURL != link {
		t.Fatalf("re-run before the answer: %s", text(res))
	}
	if b.creates.Load() != 1 || b.deletes.Load() != 0 {
		t.Fatal("a re-run before the answer ran something")
	}

	if page := (browser{"alice"}).answer(t, link, "accept"); !strings.Contains(page, "Accepted.") {
		t.Fatalf("after accept:\n%s", page)
	}
	res = run(t, cs, code)
	if res.IsError {
		t.Fatalf("re-run after accept: %s", text(res))
	}
	if b.creates.Load() != 1 || b.deletes.Load() != 1 || !sameInts(b.deleted("alice"), []int{id}) {
		t.Fatalf("creates %d deletes %d deleted %v; want the delete once and no second create", b.creates.Load(), b.deletes.Load(), b.deleted("alice"))
	}
	if st := structuredOf(t, res); len(st.Writes) != 2 {
		t.Fatalf("writes %+v, want the create and the delete", st.Writes)
	}
	// The page now says it was accepted, and cannot be answered again.
	if _, page := (browser{"alice"}).get(t, link); !strings.Contains(page, "You accepted this request.") || strings.Contains(page, `name="csrf"`) {
		t.Fatalf("page after use:\n%s", page)
	}
	// The same code again is a new execution: the race is gone, so the
	// delete fails validation; nothing is asked and nothing deleted again.
	res = run(t, cs, code)
	if st := structuredOf(t, res); st.Error == nil || st.Error.Kind == "APPROVAL_PENDING" {
		t.Fatalf("third run: %s", text(res))
	}
	if b.deletes.Load() != 1 {
		t.Fatal("deleted twice")
	}
	kinds := approvalKinds(ts.audit.all())
	if !strings.Contains(strings.Join(kinds, ","), "approval.requested,approval.granted") {
		t.Fatalf("audit %v", kinds)
	}
}

func TestApprovalPageDecline(t *testing.T) {
	ts, b := startPage(t, nil)
	id := b.add("alice", "Monza", "cancelled")
	cs := ts.connectAt(t, ts.token("alice"), "2026-07-28", nil)
	link := pendingLink(t, cs, deleteCancelled)
	if page := (browser{"alice"}).answer(t, link, "decline"); !strings.Contains(page, "Declined.") {
		t.Fatalf("after decline:\n%s", page)
	}
	res := run(t, cs, deleteCancelled)
	st := structuredOf(t, res)
	want := fmt.Sprintf(`the user declined races.deleteRace({"id":%d}); it was not run.`, id)
	if st.Error == nil || st.Error.Kind != "APPROVAL_DECLINED" || !strings.HasPrefix(st.Error.Message, want) {
		t.Fatalf("got %s", text(res))
	}
	if b.deletes.Load() != 0 {
		t.Fatal("deleted after a decline")
	}
	// Reported once: the next run is a new execution, with a new link.
	if again := pendingLink(t, cs, deleteCancelled); again == link {
		t.Fatal("the declined link was given again")
	}
}

// An expired link: the page says so (410), the re-run gets
// APPROVAL_EXPIRED with a new link for the same execution, and answering
// the new one resumes it without repeating the earlier write.
func TestApprovalPageExpired(t *testing.T) {
	ts, b := startPage(t, nil)
	var skew atomic.Int64
	codemode.SetApprovalClock(ts.Server, func() time.Time { return time.Now().Add(time.Duration(skew.Load())) })
	id := b.add("alice", "Monza", "cancelled")
	cs := ts.connectAt(t, ts.token("alice"), "2026-07-28", nil)
	code := fmt.Sprintf(createThenDelete, id)
	link := pendingLink(t, cs, code)
	skew.Store(int64(approval.DefaultTTL + time.Second))

	alice := browser{"alice"}
	status, page := alice.get(t, link)
	if status != http.StatusGone || !strings.Contains(page, "expired") || strings.Contains(page, `name="csrf"`) {
		t.Fatalf("expired page: %d\n%s", status, page)
	}
	res := run(t, cs, code)
	st := structuredOf(t, res)
	if st.Error == nil || st.Error.Kind != "APPROVAL_EXPIRED" || st.ApprovalURL == "" || st.ApprovalURL == link || !strings.Contains(st.Error.Message, st.ApprovalURL) {
		t.Fatalf("got %s", text(res))
	}
	alice.answer(t, st.ApprovalURL, "accept")
	if res := run(t, cs, code); res.IsError {
		t.Fatalf("after accepting the new link: %s", text(res))
	}
	if b.creates.Load() != 1 || b.deletes.Load() != 1 {
		t.Fatalf("creates %d deletes %d", b.creates.Load(), b.deletes.Load())
	}
}

// Only the principal the execution ran as sees the page; anyone else, and
// a missing or malformed id, get the same answer. An answer without the
// page's token, or from another origin, changes nothing.
func TestApprovalPageRefusals(t *testing.T) {
	ts, b := startPage(t, nil)
	b.add("alice", "Monza", "cancelled")
	cs := ts.connectAt(t, ts.token("alice"), "2026-07-28", nil)
	link := pendingLink(t, cs, deleteCancelled)

	// The page's own refusals are tested in package approval; here, what
	// they mean for the execution.
	bob := browser{"bob"}
	if code, _ := bob.get(t, link); code != http.StatusNotFound {
		t.Fatalf("bob's GET: %d", code)
	}
	_, page := browser{"alice"}.get(t, link)
	token := pagetest.CSRF(page)
	if code, _ := bob.do(t, "POST", link, url.Values{"csrf": {token}, "action": {"accept"}}, nil); code != http.StatusNotFound {
		t.Fatalf("bob's POST: %d", code)
	}
	alice := browser{"alice"}
	if code, _ := alice.do(t, "POST", link, url.Values{"csrf": {token}, "action": {"accept"}}, map[string]string{"Origin": "http://evil.example"}); code != http.StatusForbidden {
		t.Errorf("cross-site: %d, want 403", code)
	}
	if code, _ := alice.do(t, "POST", link, url.Values{"csrf": {"forged"}, "action": {"accept"}}, nil); code != http.StatusForbidden {
		t.Errorf("forged token: %d, want 403", code)
	}
	res := run(t, cs, deleteCancelled)
	if st := structuredOf(t, res); st.Error == nil || st.Error.Kind != "APPROVAL_PENDING" {
		t.Fatalf("after refused answers: %s", text(res))
	}
	if b.deletes.Load() != 0 {
		t.Fatal("deleted")
	}
	// Answered once: a second answer does not change the first.
	alice.answer(t, link, "decline")
	code, page := alice.do(t, "POST", link, url.Values{"csrf": {token}, "action": {"accept"}}, nil)
	if code != http.StatusOK || !strings.Contains(page, "You declined this request.") {
		t.Fatalf("second answer: %d\n%s", code, page)
	}
}

// Requests are limited per source: approval.Page.SourceOf (tested in
// package approval), by default Options.HTTP.ClientAddress, before the
// user is authenticated or the id looked up.
func TestApprovalPageRateLimit(t *testing.T) {
	source := func(r *http.Request) string { return r.Header.Get("X-Test-Source") }
	for _, name := range []string{"SourceOf", "ClientAddress"} {
		t.Run(name, func(t *testing.T) {
			lim := &pagetest.Limiter{N: 3}
			ts, _ := startPage(t, func(o *codemode.Options) {
				o.Approvals.Page.Limiter = lim
				if name == "SourceOf" {
					o.Approvals.Page.SourceOf = source
				} else {
					o.HTTP.ClientAddress = source
				}
			})
			link := strings.TrimSuffix(ts.URL, "/mcp") + "/approve/AAAAAAAAAAAAAAAAAAAAAA"
			for _, src := range []string{"a", "b"} {
				var got []int
				for range 5 {
					code, _ := browser{}.do(t, "GET", link, nil, map[string]string{"X-Test-Source": src})
					got = append(got, code)
				}
				if want := []int{401, 401, 401, 429, 429}; !slices.Equal(got, want) {
					t.Fatalf("source %s: statuses %v, want %v", src, got, want)
				}
			}
			if lim.Seen()["approval-page:a"] != 5 {
				t.Fatalf("limiter keys %v", lim.Seen())
			}
		})
	}
}

// A client that declares only URL-mode elicitation is sent the page's
// link, and the same tools/call continues once the user answers there.
func TestApprovalPageURLElicitation(t *testing.T) {
	for _, action := range []string{"accept", "decline"} {
		t.Run(action, func(t *testing.T) {
			ts, b := startPage(t, func(o *codemode.Options) { o.HTTP.Stateful = true })
			id := b.add("alice", "Monza", "cancelled")
			var asked atomic.Pointer[mcp.ElicitParams]
			answered := make(chan error, 1)
			opts := &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked.Store(req.Params)
					// The user opens the page and answers, after the client
					// has reported the consent to open it.
					go func() {
						answered <- pagetest.Browser{Subject: "alice"}.TryAnswer(req.Params.URL, action)
					}()
					return &mcp.ElicitResult{Action: "accept"}, nil
				},
			}
			cs := ts.connectAt(t, ts.token("alice"), "2025-11-25", opts)
			res := run(t, cs, fmt.Sprintf(createThenDelete, id))
			if err := <-answered; err != nil {
				t.Fatal(err)
			}
			p := asked.Load()
			if p == nil || p.Mode != "url" || !strings.Contains(p.URL, "/approve/") || p.ElicitationID == "" {
				t.Fatalf("elicitation %+v", p)
			}
			switch action {
			case "accept":
				if res.IsError || b.deletes.Load() != 1 || b.creates.Load() != 1 {
					t.Fatalf("got %s; creates %d deletes %d", text(res), b.creates.Load(), b.deletes.Load())
				}
			default:
				if st := structuredOf(t, res); st.Error == nil || st.Error.Kind != "APPROVAL_DECLINED" || b.deletes.Load() != 0 {
					t.Fatalf("got %s", text(res))
				}
			}
		})
	}
}

// A call waiting on the page wakes as soon as the page on its own replica
// stores the answer: with the store read only once an hour, the call
// still ends at once.
func TestApprovalPageWakesWaitingCall(t *testing.T) {
	ts, b := startPage(t, func(o *codemode.Options) {
		o.HTTP.Stateful = true
		o.Approvals.Page.Poll = time.Hour
	})
	id := b.add("alice", "Monza", "cancelled")
	answered := make(chan error, 1)
	opts := &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			go func() {
				// Answer once the call has read the store and waits.
				time.Sleep(300 * time.Millisecond)
				answered <- pagetest.Browser{Subject: "alice"}.TryAnswer(req.Params.URL, "accept")
			}()
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	}
	cs := ts.connectAt(t, ts.token("alice"), "2025-11-25", opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": fmt.Sprintf("return await races.deleteRace({id: %d});", id)}})
	if err != nil {
		t.Fatalf("the call did not end after the answer: %v", err)
	}
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	if res.IsError || b.deletes.Load() != 1 {
		t.Fatalf("got %s; deletes %d", text(res), b.deletes.Load())
	}
}

// The official TypeScript client: with no elicitation it receives the
// link, the user answers, and its second run resumes the execution; with
// URL-mode elicitation it is sent the link and the one call continues.
func TestApprovalPageTypeScriptClient(t *testing.T) {
	type outcome struct {
		IsError bool
		Result  struct {
			Error       struct{ Kind, Message string }
			ApprovalURL string `json:"approvalUrl"`
			Writes      []json.RawMessage
		}
	}
	for _, tc := range []struct{ mode, action string }{{"none", "accept"}, {"none", "decline"}, {"url", "accept"}, {"url", "decline"}} {
		t.Run(tc.mode+"/"+tc.action, func(t *testing.T) {
			ts, b := startPage(t, func(o *codemode.Options) { o.HTTP.Stateful = tc.mode == "url" })
			id := b.add("alice", "Monza", "cancelled")
			out := tsclienttest.Run(t, t.Context(), "testdata/ts-approval-page.mjs", []string{"MCP_URL=" + ts.URL, "MCP_TOKEN=" + ts.token("alice"), "MCP_COOKIE=sid=alice",
				"MCP_MODE=" + tc.mode, "MCP_ACTION=" + tc.action, "MCP_CODE=" + fmt.Sprintf(createThenDelete, id)})
			var got struct {
				Elicited []struct{ Mode, URL, ElicitationID, Message string }
				Results  []outcome
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("client output %q: %v", out, err)
			}
			last := got.Results[len(got.Results)-1]
			if tc.mode == "none" {
				first := got.Results[0].Result
				if len(got.Results) != 2 || len(got.Elicited) != 0 || first.Error.Kind != "APPROVAL_PENDING" || !strings.Contains(first.Error.Message, first.ApprovalURL) {
					t.Fatalf("client saw %s", out)
				}
			} else if len(got.Results) != 1 || len(got.Elicited) != 1 || got.Elicited[0].Mode != "url" || !strings.Contains(got.Elicited[0].URL, "/approve/") {
				t.Fatalf("client saw %s", out)
			}
			if b.creates.Load() != 1 {
				t.Fatalf("creates %d, want 1", b.creates.Load())
			}
			if tc.action == "accept" && (last.IsError || len(last.Result.Writes) != 2 || !sameInts(b.deleted("alice"), []int{id})) {
				t.Fatalf("accept: %s; deleted %v", out, b.deleted("alice"))
			}
			if tc.action == "decline" && (last.Result.Error.Kind != "APPROVAL_DECLINED" || b.deletes.Load() != 0) {
				t.Fatalf("decline: %s", out)
			}
		})
	}
}
