package codemode_test

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/logtest"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/internal/pagetest"
)

// createThenDelete writes first (a create that needs no approval, named
// from the clock) and then makes a call that needs approval: the shape of
// "copy a notepad, then delete the old one".
const createThenDelete = `const copy = await races.createRace({name: "Copy of Monza " + Date.now(), status: "entered"});
await races.deleteRace({id: %d});
return {copy: copy.id, r: Math.random() < 2};`

// replayRevision is one way of asking the user: a protocol revision over
// stateful or stateless HTTP, or stdio.
type replayRevision struct {
	name     string
	version  string
	stateful bool
	stdio    bool
}

// replayRevisions are the ways to ask, with stdio added: 2026-07-28's
// input-required result, and elicitation/create on stateful HTTP and on
// stdio.
var replayRevisions = []replayRevision{
	{"2026-07-28", "2026-07-28", false, false},
	{"2025-11-25/http", "2025-11-25", true, false},
	{"2025-11-25/stdio", "2025-11-25", false, true},
}

// connectRev opens a go-sdk client session for alice the way rv says.
func (ts *testServer) connectRev(t *testing.T, stdio bool, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	if !stdio {
		return ts.connectAt(t, ts.token("alice"), version, opts)
	}
	return ts.connectStdio(t, "alice", version, opts)
}

// connectStdio serves a session for subject over stdio (ServeIO on pipes)
// and opens a go-sdk client session on it speaking revision version.
func (ts *testServer) connectStdio(t *testing.T, subject, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return mcptest.ConnectIO(t, ts.Server, catalog.Principal{Subject: subject}, version, opts)
}

// An accepted approval resumes the execution: the create made before the
// question is replayed, not repeated, even though its name comes from the
// clock; the result and the writes list both writes.
func TestApprovalWriteBeforeApproval(t *testing.T) {
	for _, rv := range replayRevisions {
		t.Run(rv.name, func(t *testing.T) {
			ts, b := startApprovals(t, func(o *codemode.Options) { o.HTTP.Stateful = rv.stateful })
			old := b.add("alice", "Monza", "entered")
			e := &elicitor{action: always("accept")}
			cs := ts.connectRev(t, rv.stdio, rv.version, &mcp.ClientOptions{ElicitationHandler: e.handle})
			res := run(t, cs, fmt.Sprintf(createThenDelete, old))
			if res.IsError {
				t.Fatalf("error: %s", text(res))
			}
			if n := b.creates.Load(); n != 1 {
				t.Fatalf("createRace ran %d times, want once", n)
			}
			if b.deletes.Load() != 1 || !sameInts(b.deleted("alice"), []int{old}) {
				t.Fatalf("deleted %v", b.deleted("alice"))
			}
			st := structuredOf(t, res)
			if len(st.Writes) != 2 || st.Writes[0].Function != "races.createRace" || string(st.Writes[0].ID) != fmt.Sprint(old+1) || st.Writes[1].Function != "races.deleteRace" {
				t.Fatalf("writes %+v", st.Writes)
			}
			asked := e.asked()
			if len(asked) != 1 || !strings.Contains(asked[0], "Already changed by this code:\n- races.createRace({\"name\":\"Copy of Monza ") || strings.Contains(asked[0], "Nothing has been changed") {
				t.Fatalf("asked %q", asked)
			}
			if !strings.HasPrefix(text(res), "Writes made by this execution:\n- races.createRace(") {
				t.Fatalf("text %q", text(res))
			}
		})
	}
}

// Every approval outcome after a write says what was written, never
// "nothing was written".
func TestApprovalOutcomesListWrites(t *testing.T) {
	for _, rv := range replayRevisions {
		for _, action := range []string{"decline", "cancel"} {
			t.Run(rv.name+"/"+action, func(t *testing.T) {
				ts, b := startApprovals(t, func(o *codemode.Options) { o.HTTP.Stateful = rv.stateful })
				old := b.add("alice", "Monza", "entered")
				e := &elicitor{action: always(action)}
				cs := ts.connectRev(t, rv.stdio, rv.version, &mcp.ClientOptions{ElicitationHandler: e.handle})
				res := run(t, cs, fmt.Sprintf(createThenDelete, old))
				st := structuredOf(t, res)
				if st.Error == nil || !strings.HasPrefix(st.Error.Kind, "APPROVAL_") {
					t.Fatalf("got %s\n%s", text(res), ts.trail(res))
				}
				msg := st.Error.Message
				if strings.Contains(strings.ToLower(msg), "nothing was written") || !strings.Contains(msg, "This execution already made 1 write, which stays: races.createRace(") {
					t.Fatalf("message %q", msg)
				}
				if len(st.Writes) != 1 || b.creates.Load() != 1 || b.deletes.Load() != 0 {
					t.Fatalf("writes %+v, creates %d, deletes %d", st.Writes, b.creates.Load(), b.deletes.Load())
				}
			})
		}
	}
	t.Run("unanswered", func(t *testing.T) {
		ts, b := startApprovals(t, func(o *codemode.Options) { o.HTTP.Stateful = true; o.Approvals.TTL = time.Second })
		old := b.add("alice", "Monza", "entered")
		e := &elicitor{action: always("accept"), before: func(int) { time.Sleep(3 * time.Second) }}
		cs := ts.connectAt(t, ts.token("alice"), "2025-11-25", &mcp.ClientOptions{ElicitationHandler: e.handle})
		res := run(t, cs, fmt.Sprintf(createThenDelete, old))
		st := structuredOf(t, res)
		if st.Error == nil || st.Error.Kind != "APPROVAL_CANCELLED" || !strings.Contains(st.Error.Message, "did not answer") || !strings.Contains(st.Error.Message, "This execution already made 1 write") || len(st.Writes) != 1 {
			t.Fatalf("got %s", text(res))
		}
		if b.deletes.Load() != 0 {
			t.Fatal("deleted")
		}
	})
	t.Run("unavailable", func(t *testing.T) {
		ts, b := startApprovals(t, nil)
		old := b.add("alice", "Monza", "entered")
		cs := ts.connectAt(t, ts.token("alice"), "2025-11-25", nil)
		res := run(t, cs, fmt.Sprintf(createThenDelete, old))
		st := structuredOf(t, res)
		if st.Error == nil || st.Error.Kind != "APPROVAL_UNAVAILABLE" || strings.Contains(st.Error.Message, "Nothing was written") || len(st.Writes) != 1 {
			t.Fatalf("got %s", text(res))
		}
	})
}

// A loop deleting three races asks once, and its result counts three.
func TestApprovalLoopAsksOnce(t *testing.T) {
	for _, rv := range replayRevisions {
		t.Run(rv.name, func(t *testing.T) {
			ts, b := startApprovals(t, func(o *codemode.Options) { o.HTTP.Stateful = rv.stateful })
			var ids []int
			for i := range 3 {
				ids = append(ids, b.add("alice", fmt.Sprint("Race ", i), "cancelled"))
			}
			e := &elicitor{action: always("accept")}
			cs := ts.connectRev(t, rv.stdio, rv.version, &mcp.ClientOptions{ElicitationHandler: e.handle})
			res := run(t, cs, `let deleted = 0;
for (const r of await races.listRaces({status: "cancelled"})) deleted += (await races.deleteRace({id: r.id})).deleted;
return {deleted};`)
			if res.IsError || string(structuredOf(t, res).Result) != `{"deleted":3}` {
				t.Fatalf("got %s", text(res))
			}
			if n := len(e.asked()); n != 1 {
				t.Fatalf("asked %d times, want once", n)
			}
			if !sameInts(b.deleted("alice"), ids) || b.deletes.Load() != 3 || len(structuredOf(t, res).Writes) != 3 {
				t.Fatalf("deleted %v (%d runs)", b.deleted("alice"), b.deletes.Load())
			}
		})
	}
}

// A sealed state is spent once: the same request retried after a lost
// response gets the first outcome and runs nothing; any other use of the
// state is refused.
func TestApprovalSpentOnce(t *testing.T) {
	ts, b := startApprovals(t, nil)
	id := b.add("alice", "Monza", "cancelled")
	code := fmt.Sprintf(`return await races.deleteRace({id: %d});`, id)
	cs, pend := pendingApproval(t, ts, ts.token("alice"), code)
	first := retry(t, cs, code, pend.RequestState)
	if first.IsError || b.deletes.Load() != 1 {
		t.Fatalf("first use: %s", text(first))
	}
	again := retry(t, cs, code, pend.RequestState)
	if again.IsError || text(again) != text(first) || b.deletes.Load() != 1 {
		t.Fatalf("retry: %s; deletes %d", text(again), b.deletes.Load())
	}
	other, err := cs.CallTool(context.Background(), &mcp.CallToolParams{
		Name: codemode.ToolName, Arguments: map[string]any{"code": code}, RequestState: pend.RequestState,
		InputResponses: mcp.InputResponseMap{"approval": &mcp.ElicitResult{Action: "decline"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if st := structuredOf(t, other); st.Error == nil || st.Error.Kind != "APPROVAL_INVALID" || !strings.Contains(st.Error.Message, "already used") {
		t.Fatalf("second use with another answer: %s", text(other))
	}
	if b.deletes.Load() != 1 {
		t.Fatalf("deleteRace ran %d times", b.deletes.Load())
	}
}

// A resumed run whose call differs from the record ends in
// APPROVAL_DIVERGED naming both calls, and runs neither.
func TestApprovalDiverged(t *testing.T) {
	key := []byte(strings.Repeat("k", 32))
	ts, b := startApprovals(t, func(o *codemode.Options) { o.Approvals.Key = key })
	old := b.add("alice", "Monza", "entered")
	code := fmt.Sprintf(createThenDelete, old)
	cs, pend := pendingApproval(t, ts, ts.token("alice"), code)
	forged := replaceRecordedArgs(t, key, pend.RequestState, `{"name":"Other","status":"entered"}`)
	res := retry(t, cs, code, forged)
	st := structuredOf(t, res)
	if st.Error == nil || st.Error.Kind != "APPROVAL_DIVERGED" {
		t.Fatalf("got %s", text(res))
	}
	if !strings.Contains(st.Error.Message, `races.createRace({"name":"Copy of Monza `) || !strings.Contains(st.Error.Message, `where the approved run had called races.createRace({"name":"Other","status":"entered"})`) {
		t.Fatalf("message %q", st.Error.Message)
	}
	if b.creates.Load() != 1 || b.deletes.Load() != 0 {
		t.Fatalf("creates %d, deletes %d", b.creates.Load(), b.deletes.Load())
	}
	if len(st.Writes) != 0 {
		// The forged record holds a create that never ran as listed; the
		// writes are the record's, so this one lists it.
		t.Logf("writes %+v", st.Writes)
	}
}

// Reads too large to carry in an approval end the execution with an
// error that says what to do, before the user is asked.
func TestApprovalRecordTooLarge(t *testing.T) {
	ts, b := startApprovals(t, nil)
	for i := range 3000 {
		b.add("alice", strings.Repeat("long race name ", 8)+fmt.Sprint(i), "entered")
	}
	id := b.add("alice", "Monza", "cancelled")
	cs := ts.connectAt(t, ts.token("alice"), "2026-07-28", &mcp.ClientOptions{ElicitationHandler: (&elicitor{action: always("accept")}).handle})
	res := run(t, cs, fmt.Sprintf(`const all = await races.listRaces({}); await races.deleteRace({id: %d}); return all.length;`, id))
	st := structuredOf(t, res)
	if st.Error == nil || st.Error.Kind != "APPROVAL_TOO_LARGE" || !strings.Contains(st.Error.Message, "Read less before the call that needs approval") {
		t.Fatalf("got %s", text(res))
	}
	if b.deletes.Load() != 0 {
		t.Fatal("deleted")
	}
}

// The texts the user and the model read, in golden files.
func TestApprovalTextsGolden(t *testing.T) {
	ts, b := startApprovals(t, func(o *codemode.Options) { o.HTTP.Stateful = true })
	old := b.add("alice", "Monza", "entered")
	e := &elicitor{action: always("decline")}
	cs := ts.connectAt(t, ts.token("alice"), "2025-11-25", &mcp.ClientOptions{ElicitationHandler: e.handle})
	code := strings.Replace(fmt.Sprintf(createThenDelete, old), `" + Date.now()`, `"`, 1)
	res := run(t, cs, code)
	var out strings.Builder
	out.WriteString("== question (user)\n" + e.asked()[0] + "\n\n== declined (model)\n" + text(res) + "\n")
	nocs := ts.connectAt(t, ts.token("alice"), "2025-11-25", nil)
	out.WriteString("\n== unavailable (model)\n" + text(run(t, nocs, code)) + "\n")
	golden(t, "approval_texts.golden", out.String())
}

// A request cancelled while it waits for the user's answer ends as
// CANCELLED, with the write made before it listed, in the audit trail
// and the server's log: never as an internal sandbox failure.
func TestApprovalWaitCancelled(t *testing.T) {
	for _, page := range []bool{false, true} {
		t.Run(map[bool]string{false: "elicitation", true: "page"}[page], func(t *testing.T) {
			var logs logtest.Buffer
			ts, b := startApprovals(t, func(o *codemode.Options) {
				o.HTTP.Stateful = true
				o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
				if page {
					o.Approvals.Page = &approval.Page{Authenticate: pagetest.CookieAuth}
				}
			})
			old := b.add("alice", "Monza", "entered")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts := &mcp.ClientOptions{
				ElicitationHandler: func(ectx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					cancel() // the user walks away; the client gives up
					if page {
						return &mcp.ElicitResult{Action: "accept"}, nil // opened, never answered
					}
					// go-sdk does not cancel the question when the server
					// stops waiting; a client would time it out.
					select {
					case <-ectx.Done():
					case <-time.After(3 * time.Second):
					}
					return &mcp.ElicitResult{Action: "cancel"}, nil
				},
			}
			if page {
				opts.Capabilities = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}
			}
			cs := ts.connectAt(t, ts.token("alice"), "2025-11-25", opts)
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": fmt.Sprintf(createThenDelete, old)}}); err == nil {
				t.Fatal("the cancelled call returned a result")
			}
			var failed *codemode.AuditEvent
			for i := 0; failed == nil; i++ {
				if i == 500 {
					t.Fatalf("no execution.failed event:\n%s", ts.trail(&mcp.CallToolResult{}))
				}
				time.Sleep(10 * time.Millisecond)
				for _, ev := range ts.audit.all() {
					if ev.Kind == codemode.ExecutionFailed {
						failed = &ev
					}
				}
			}
			if failed.ErrorKind != "CANCELLED" {
				t.Fatalf("execution.failed with %q, want CANCELLED:\n%s", failed.ErrorKind, ts.trail(&mcp.CallToolResult{}))
			}
			var ended bool
			for _, ev := range ts.audit.all() {
				ended = ended || ev.Kind == codemode.ApprovalDeclined && ev.Function == "races.deleteRace" && ev.ErrorKind == "request ended"
			}
			if !ended || b.creates.Load() != 1 || b.deletes.Load() != 0 {
				t.Fatalf("declined %v, creates %d, deletes %d", ended, b.creates.Load(), b.deletes.Load())
			}
			if strings.Contains(logs.String(), "sandbox failure") {
				t.Fatalf("logged as a failure:\n%s", logs.String())
			}
		})
	}
}

// replaceRecordedArgs opens a request state sealed with key, replaces the
// arguments of its first recorded call and seals it again, as a replica
// sharing the key whose host data changed under the record would see it.
// It follows package approval's sealing: AES-GCM under an HMAC-SHA256 of
// key, with fixed additional data.
func replaceRecordedArgs(t *testing.T, key []byte, token, args string) string {
	t.Helper()
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("codemode approval sealing v1"))
	block, err := aes.NewCipher(mac.Sum(nil))
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	ad := []byte("codemode approval state v2")
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		t.Fatal(err)
	}
	n := aead.NonceSize()
	plain, err := aead.Open(nil, raw[:n], raw[n:], ad)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]json.RawMessage
	if err := json.Unmarshal(plain, &st); err != nil {
		t.Fatal(err)
	}
	var rec []map[string]json.RawMessage
	if err := json.Unmarshal(st["record"], &rec); err != nil || len(rec) == 0 {
		t.Fatalf("record %s: %v", st["record"], err)
	}
	rec[0]["args"] = json.RawMessage(args)
	if st["record"], err = json.Marshal(rec); err != nil {
		t.Fatal(err)
	}
	if plain, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	nonce := make([]byte, n)
	if _, err := rand.Read(nonce); err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, plain, ad))
}
