package codemode_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/internal/tsclienttest"
	"github.com/brakinglab/codemode-go/sandbox"
)

// raceBook is a catalog of races per user with a deletion that needs the
// user's approval (MUTATING is in approval.Options.Tiers) and a rename
// that does not (catalog.ApprovalNotRequired).
type raceBook struct {
	cat     *catalog.Catalog
	mu      sync.Mutex
	races   map[string][]*bookRace // subject → races
	nextID  int
	deletes atomic.Int64 // handler runs of deleteRace
	creates atomic.Int64 // handler runs of createRace
}

type bookRace struct {
	ID      int    `json:"id"`
	Name    string `json:"name"`
	Status  string `json:"status"`
	Deleted bool   `json:"-"`
}

type listRacesIn struct {
	Status string `json:"status,omitempty"`
}

type raceIDIn struct {
	ID int `json:"id" validate:"required"`
}

type renameIn struct {
	ID   int    `json:"id" validate:"required"`
	Name string `json:"name" validate:"required"`
}

type createIn struct {
	Name   string `json:"name" validate:"required"`
	Status string `json:"status,omitempty"`
}

type deletedOut struct {
	Deleted int `json:"deleted"`
}

func newRaceBook(t *testing.T) *raceBook {
	t.Helper()
	b := &raceBook{races: map[string][]*bookRace{}}
	cat, err := catalog.New("races", nil)
	if err != nil {
		t.Fatal(err)
	}
	b.cat = cat
	catalog.MustAdd(cat, catalog.Func[listRacesIn, []bookRace]{
		Name: "listRaces", Description: "Lists the user's races.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, in listRacesIn) ([]bookRace, error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			var out []bookRace
			for _, r := range b.races[subject(ctx)] {
				if !r.Deleted && (in.Status == "" || r.Status == in.Status) {
					out = append(out, *r)
				}
			}
			return out, nil
		},
	})
	own := func(ctx context.Context, id int) (*bookRace, error) {
		for _, r := range b.races[subject(ctx)] {
			if r.ID == id && !r.Deleted {
				return r, nil
			}
		}
		return nil, catalog.NotFound("race %d not found: list races with races.listRaces", id)
	}
	catalog.MustAdd(cat, catalog.Func[raceIDIn, deletedOut]{
		Name: "deleteRace", Description: "Deletes one race.", Tier: catalog.Mutating,
		Validate: func(ctx context.Context, in raceIDIn) error {
			b.mu.Lock()
			defer b.mu.Unlock()
			_, err := own(ctx, in.ID)
			return err
		},
		Handler: func(ctx context.Context, in raceIDIn) (deletedOut, error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			r, err := own(ctx, in.ID)
			if err != nil {
				return deletedOut{}, err
			}
			b.deletes.Add(1)
			r.Deleted = true
			return deletedOut{Deleted: 1}, nil
		},
	})
	catalog.MustAdd(cat, catalog.Func[createIn, bookRace]{
		Name: "createRace", Description: "Creates a race.", Tier: catalog.Mutating, Approval: catalog.ApprovalNotRequired,
		Handler: func(ctx context.Context, in createIn) (bookRace, error) {
			b.creates.Add(1)
			id := b.add(subject(ctx), in.Name, in.Status)
			return bookRace{ID: id, Name: in.Name, Status: in.Status}, nil
		},
	})
	catalog.MustAdd(cat, catalog.Func[renameIn, bookRace]{
		Name: "renameRace", Description: "Renames a race.", Tier: catalog.Mutating, Approval: catalog.ApprovalNotRequired,
		Handler: func(ctx context.Context, in renameIn) (bookRace, error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			r, err := own(ctx, in.ID)
			if err != nil {
				return bookRace{}, err
			}
			r.Name = in.Name
			return *r, nil
		},
	})
	return b
}

func subject(ctx context.Context) string {
	p, _ := catalog.PrincipalFrom(ctx)
	return p.Subject
}

// add gives sub a race and returns its id.
func (b *raceBook) add(sub, name, status string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextID++
	b.races[sub] = append(b.races[sub], &bookRace{ID: b.nextID, Name: name, Status: status})
	return b.nextID
}

// deleted lists the ids of sub's deleted races.
func (b *raceBook) deleted(sub string) []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []int
	for _, r := range b.races[sub] {
		if r.Deleted {
			out = append(out, r.ID)
		}
	}
	return out
}

// startApprovals serves a raceBook with MUTATING functions needing approval.
func startApprovals(t *testing.T, configure func(*codemode.Options)) (*testServer, *raceBook) {
	t.Helper()
	b := newRaceBook(t)
	ts := startServerFor(t, b.cat, func(o *codemode.Options) {
		o.Approvals.Tiers = []catalog.Tier{catalog.Mutating}
		// These tests assert approval outcomes, not limits. A worker
		// starved on a loaded CI machine once turned an outcome into
		// TIMEOUT at the default 10 s; a hang still fails, after a minute.
		o.Limits.Timeout = time.Minute
		if configure != nil {
			configure(o)
		}
	})
	return ts, b
}

// elicitor answers elicitation requests with action and records them.
type elicitor struct {
	mu       sync.Mutex
	messages []string
	action   func(n int) string // n counts from 1
	before   func(n int)        // runs before answering
}

func (e *elicitor) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	e.mu.Lock()
	e.messages = append(e.messages, req.Params.Message)
	n := len(e.messages)
	e.mu.Unlock()
	if e.before != nil {
		e.before(n)
	}
	return &mcp.ElicitResult{Action: e.action(n), Content: map[string]any{}}, nil
}

func (e *elicitor) asked() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.messages)
}

func always(action string) func(int) string { return func(int) string { return action } }

// connectAt opens a go-sdk client session speaking revision version.
func (ts *testServer) connectAt(t *testing.T, token, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return mcptest.ConnectHTTP(t, ts.URL, token, version, opts)
}

// revisions are the two ways to ask: 2026-07-28's input-required result
// on the default stateless endpoint, and elicitation/create on a stateful
// one for earlier revisions.
var revisions = []struct {
	name     string
	version  string
	stateful bool
}{
	{"2026-07-28", "2026-07-28", false},
	{"2025-11-25", "2025-11-25", true},
}

const deleteCancelled = `const rs = await races.listRaces({status: "cancelled"});
const out = await Promise.all(rs.map(r => races.deleteRace({id: r.id})));
return out.length;`

func TestApprovalAccept(t *testing.T) {
	for _, rv := range revisions {
		t.Run(rv.name, func(t *testing.T) {
			ts, b := startApprovals(t, func(o *codemode.Options) { o.HTTP.Stateful = rv.stateful })
			keep := b.add("alice", "Spa sprint", "entered")
			c1 := b.add("alice", "Monza GT3", "cancelled")
			c2 := b.add("alice", "Imola", "cancelled")
			e := &elicitor{action: always("accept")}
			cs := ts.connectAt(t, ts.token("alice"), rv.version, &mcp.ClientOptions{ElicitationHandler: e.handle})

			res := run(t, cs, deleteCancelled)
			if res.IsError {
				t.Fatalf("error: %s", text(res))
			}
			if got := string(structuredOf(t, res).Result); got != "2" {
				t.Fatalf("result %s, want 2", got)
			}
			asked := e.asked()
			if len(asked) != 1 {
				t.Fatalf("asked %d times, want once for the batch: %q", len(asked), asked)
			}
			want := fmt.Sprintf("Test Client (client test-client) asks to make 2 changes in races:\n\n1. races.deleteRace (MUTATING)\n   id: %d\n2. races.deleteRace (MUTATING)\n   id: %d\n\nNothing has been changed yet. Accept to make these changes, and further races.deleteRace calls this code makes in this execution; decline to make none of them.", c1, c2)
			if asked[0] != want {
				t.Fatalf("message:\n%s\nwant:\n%s", asked[0], want)
			}
			if got := b.deleted("alice"); !sameInts(got, []int{c1, c2}) {
				t.Fatalf("deleted %v, want %v (and not %d)", got, []int{c1, c2}, keep)
			}
			if n := b.deletes.Load(); n != 2 {
				t.Fatalf("deleteRace ran %d times, want 2", n)
			}
			kinds := approvalKinds(ts.audit.all())
			if !slices.Equal(kinds, []string{"approval.requested", "approval.requested", "approval.granted", "approval.granted"}) {
				t.Fatalf("approval events %v", kinds)
			}
			if st := ts.Stats(); st.ApprovalsAsked != 2 || st.ApprovalsAccepted != 2 || st.ApprovalsDeclined != 0 || st.Executions["ok"] != 1 || st.Executions["APPROVAL_REQUIRED"] != map[bool]uint64{true: 1}[rv.version == "2026-07-28"] {
				t.Fatalf("Stats %+v", st)
			}
		})
	}
}

func TestApprovalDeclineAndCancel(t *testing.T) {
	for _, rv := range revisions {
		for _, action := range []string{"decline", "cancel"} {
			t.Run(rv.name+"/"+action, func(t *testing.T) {
				ts, b := startApprovals(t, func(o *codemode.Options) { o.HTTP.Stateful = rv.stateful })
				c1 := b.add("alice", "Monza GT3", "cancelled")
				e := &elicitor{action: always(action)}
				cs := ts.connectAt(t, ts.token("alice"), rv.version, &mcp.ClientOptions{ElicitationHandler: e.handle})

				res := run(t, cs, deleteCancelled)
				st := structuredOf(t, res)
				kind := map[string]string{"decline": "APPROVAL_DECLINED", "cancel": "APPROVAL_CANCELLED"}[action]
				if !res.IsError || st.Error == nil || st.Error.Kind != kind {
					t.Fatalf("want %s, got %s", kind, text(res))
				}
				call := fmt.Sprintf(`races.deleteRace({"id":%d})`, c1)
				if !strings.Contains(st.Error.Message, call) || !strings.Contains(st.Error.Message, "Nothing was written") || !strings.Contains(st.Error.Message, "unless the user asks") {
					t.Fatalf("message %q does not name %s and say not to retry", st.Error.Message, call)
				}
				if len(e.asked()) != 1 || b.deletes.Load() != 0 || len(b.deleted("alice")) != 0 {
					t.Fatalf("asked %d, deleted %v", len(e.asked()), b.deleted("alice"))
				}
				kinds := approvalKinds(ts.audit.all())
				if !slices.Equal(kinds, []string{"approval.requested", "approval.declined"}) {
					t.Fatalf("approval events %v", kinds)
				}
				if st := ts.Stats(); st.ApprovalsAsked != 1 || st.ApprovalsAccepted != 0 || st.ApprovalsDeclined != 1 || st.Executions[kind] != 1 {
					t.Fatalf("Stats %+v", st)
				}
			})
		}
	}
}

// A call that needs approval but fails its dry run is not asked about:
// the script reads the validation error, and nothing is written.
func TestApprovalInvalidCallNotAsked(t *testing.T) {
	ts, b := startApprovals(t, nil)
	e := &elicitor{action: always("accept")}
	cs := ts.connectAt(t, ts.token("alice"), "2026-07-28", &mcp.ClientOptions{ElicitationHandler: e.handle})
	res := run(t, cs, `try { await races.deleteRace({id: 999}); } catch (e) { return e.code; }`)
	if res.IsError || string(structuredOf(t, res).Result) != `"not_found"` {
		t.Fatalf("got %s", text(res))
	}
	if len(e.asked()) != 0 || b.deletes.Load() != 0 {
		t.Fatal("asked about an invalid call")
	}
}

// Functions marked ApprovalNotRequired and the script's own dry runs run
// without asking.
func TestApprovalNotRequiredRuns(t *testing.T) {
	ts, b := startApprovals(t, nil)
	id := b.add("alice", "Spa", "entered")
	e := &elicitor{action: always("decline")}
	cs := ts.connectAt(t, ts.token("alice"), "2026-07-28", &mcp.ClientOptions{ElicitationHandler: e.handle})
	res := run(t, cs, fmt.Sprintf(`const r = await races.renameRace({id: %d, name: "Spa 24h"});
const v = await races.deleteRace({id: %d, _validateOnly: true});
return [r.name, v.valid];`, id, id))
	if res.IsError || string(structuredOf(t, res).Result) != `["Spa 24h",true]` {
		t.Fatalf("got %s", text(res))
	}
	if len(e.asked()) != 0 || b.deletes.Load() != 0 {
		t.Fatal("asked or deleted")
	}
}

func TestApprovalWithoutElicitation(t *testing.T) {
	t.Run("refuse", func(t *testing.T) {
		ts, b := startApprovals(t, nil)
		id := b.add("alice", "Monza", "cancelled")
		cs := ts.connectAt(t, ts.token("alice"), "2026-07-28", nil)
		res := run(t, cs, deleteCancelled)
		st := structuredOf(t, res)
		if st.Error == nil || st.Error.Kind != "APPROVAL_UNAVAILABLE" {
			t.Fatalf("got %s", text(res))
		}
		want := fmt.Sprintf(`races.deleteRace({"id":%d}) needs the user's approval, but the server cannot ask the user: the client did not declare the elicitation capability. Nothing was written.`, id)
		if !strings.HasPrefix(st.Error.Message, want) {
			t.Fatalf("message %q\nwant prefix %q", st.Error.Message, want)
		}
		if b.deletes.Load() != 0 {
			t.Fatal("deleted without approval")
		}
	})
	t.Run("stateless-old-revision", func(t *testing.T) {
		ts, b := startApprovals(t, func(o *codemode.Options) { o.HTTP.Stateless = true })
		b.add("alice", "Monza", "cancelled")
		e := &elicitor{action: always("accept")}
		cs := ts.connectAt(t, ts.token("alice"), "2025-11-25", &mcp.ClientOptions{ElicitationHandler: e.handle})
		res := run(t, cs, deleteCancelled)
		st := structuredOf(t, res)
		if st.Error == nil || st.Error.Kind != "APPROVAL_UNAVAILABLE" || !strings.Contains(st.Error.Message, "on protocol revision 2025-11-25 the server can send the client a request during a call only within a session (revision 2026-07-28 needs none), and this server is configured to open no session (Options.HTTP.Stateless)") {
			t.Fatalf("got %s", text(res))
		}
		if b.deletes.Load() != 0 || len(e.asked()) != 0 {
			t.Fatal("deleted or asked")
		}
	})
	t.Run("allow", func(t *testing.T) {
		ts, b := startApprovals(t, func(o *codemode.Options) { o.Approvals.Fallback = approval.Allow })
		id := b.add("alice", "Monza", "cancelled")
		cs := ts.connectAt(t, ts.token("alice"), "2026-07-28", nil)
		res := run(t, cs, deleteCancelled)
		if res.IsError || !sameInts(b.deleted("alice"), []int{id}) {
			t.Fatalf("got %s, deleted %v", text(res), b.deleted("alice"))
		}
	})
}

// The data changes between the approval and the resumed run: the resumed
// run reads what the first run read (replayed from the record), so it
// deletes exactly the race the user approved, and nothing else.
func TestApprovalResumeReplaysReads(t *testing.T) {
	for _, rv := range revisions {
		t.Run(rv.name, func(t *testing.T) {
			ts, b := startApprovals(t, func(o *codemode.Options) { o.HTTP.Stateful = rv.stateful })
			first := b.add("alice", "Monza", "cancelled")
			e := &elicitor{action: always("accept"), before: func(n int) {
				// Another client cancels a race meanwhile; the script
				// deletes the newest cancelled race.
				b.add("alice", "Suzuka", "cancelled")
			}}
			cs := ts.connectAt(t, ts.token("alice"), rv.version, &mcp.ClientOptions{ElicitationHandler: e.handle})
			res := run(t, cs, `const rs = await races.listRaces({status: "cancelled"});
await races.deleteRace({id: rs[rs.length - 1].id});
return rs.length;`)
			if res.IsError || string(structuredOf(t, res).Result) != "1" {
				t.Fatalf("got %s", text(res))
			}
			if n := len(e.asked()); n != 1 {
				t.Fatalf("asked %d times", n)
			}
			if !sameInts(b.deleted("alice"), []int{first}) || b.deletes.Load() != 1 {
				t.Fatalf("deleted %v, want only %d", b.deleted("alice"), first)
			}
		})
	}
}

// pendingApproval runs code for token with automatic multi round-trip off
// and returns the input-required result.
func pendingApproval(t *testing.T, ts *testServer, token, code string) (*mcp.ClientSession, *mcp.CallToolResult) {
	t.Helper()
	cs := ts.connectAt(t, token, "2026-07-28", &mcp.ClientOptions{
		ElicitationHandler: (&elicitor{action: always("accept")}).handle,
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	})
	res := run(t, cs, code)
	if !res.NeedsInput() || res.RequestState == "" || res.InputRequests["approval"] == nil {
		t.Fatalf("want an input-required result, got %s", text(res))
	}
	return cs, res
}

// retry sends the answer accept with state for code.
func retry(t *testing.T, cs *mcp.ClientSession, code, state string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{
		Name:           codemode.ToolName,
		Arguments:      map[string]any{"code": code},
		RequestState:   state,
		InputResponses: mcp.InputResponseMap{"approval": &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}},
	})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	return res
}

func TestApprovalStateRefused(t *testing.T) {
	ts, b := startApprovals(t, nil)
	now := time.Now()
	var clock atomic.Pointer[time.Time]
	clock.Store(&now)
	codemode.SetApprovalClock(ts.Server, func() time.Time { return *clock.Load() })
	id := b.add("alice", "Monza", "cancelled")
	b.add("bob", "Monza", "cancelled")
	code := fmt.Sprintf(`return await races.deleteRace({id: %d});`, id)
	cs, pend := pendingApproval(t, ts, ts.token("alice"), code)
	tok := pend.RequestState

	refused := func(name string, cs *mcp.ClientSession, code, state string) {
		t.Helper()
		res := retry(t, cs, code, state)
		st := structuredOf(t, res)
		if st.Error == nil || st.Error.Kind != "APPROVAL_INVALID" {
			t.Fatalf("%s: got %s", name, text(res))
		}
		if b.deletes.Load() != 0 {
			t.Fatalf("%s: deleted", name)
		}
	}
	// Flip one character in the middle of the sealed state.
	mid := len(tok) / 2
	flipped := tok[:mid] + string(rune(tok[mid])^1) + tok[mid+1:]
	refused("tampered", cs, code, flipped)
	refused("truncated", cs, code, tok[:len(tok)-4])
	refused("other code", cs, code+"\n", tok)
	bobCS := ts.connectAt(t, ts.token("bob"), "2026-07-28", &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	refused("other user", bobCS, code, tok)
	later := now.Add(approval.DefaultTTL + time.Second)
	clock.Store(&later)
	refused("expired", cs, code, tok)

	// The same state, in time, for the right user and code, is accepted.
	clock.Store(&now)
	res := retry(t, cs, code, tok)
	if res.IsError || !sameInts(b.deleted("alice"), []int{id}) {
		t.Fatalf("valid approval: %s, deleted %v", text(res), b.deleted("alice"))
	}
	if len(b.deleted("bob")) != 0 {
		t.Fatal("bob's race deleted")
	}
}

// A sealed state from another server (another key) is refused, and one
// from a replica with the same key is accepted.
func TestApprovalStateKey(t *testing.T) {
	key := []byte(strings.Repeat("k", 32))
	ts1, b1 := startApprovals(t, func(o *codemode.Options) { o.Approvals.Key = key })
	ts2, b2 := startApprovals(t, func(o *codemode.Options) { o.Approvals.Key = key })
	ts3, b3 := startApprovals(t, func(o *codemode.Options) { o.Approvals.Key = []byte(strings.Repeat("x", 32)) })
	for _, b := range []*raceBook{b1, b2, b3} {
		b.add("alice", "Monza", "cancelled")
	}
	code := `return await races.deleteRace({id: 1});`
	_, pend := pendingApproval(t, ts1, ts1.token("alice"), code)
	cs3 := ts3.connectAt(t, ts3.token("alice"), "2026-07-28", nil)
	if st := structuredOf(t, retry(t, cs3, code, pend.RequestState)); st.Error == nil || st.Error.Kind != "APPROVAL_INVALID" || b3.deletes.Load() != 0 {
		t.Fatalf("other key accepted: %+v", st.Error)
	}
	cs2 := ts2.connectAt(t, ts2.token("alice"), "2026-07-28", nil)
	if res := retry(t, cs2, code, pend.RequestState); res.IsError || b2.deletes.Load() != 1 || b1.deletes.Load() != 0 {
		t.Fatalf("replica with the same key: %s", text(res))
	}
}

// Two users approve their own deletions at the same time; each deletes
// exactly their own cancelled races.
func TestApprovalConcurrentUsers(t *testing.T) {
	for _, rv := range revisions {
		t.Run(rv.name, func(t *testing.T) {
			ts, b := startApprovals(t, func(o *codemode.Options) { o.HTTP.Stateful = rv.stateful })
			want := map[string][]int{}
			for _, u := range []string{"alice", "bob"} {
				b.add(u, "Spa", "entered")
				want[u] = []int{b.add(u, "Monza", "cancelled"), b.add(u, "Imola", "cancelled")}
			}
			var wg sync.WaitGroup
			errs := make(chan string, 2)
			for _, u := range []string{"alice", "bob"} {
				e := &elicitor{action: always("accept")}
				cs := ts.connectAt(t, ts.token(u), rv.version, &mcp.ClientOptions{ElicitationHandler: e.handle})
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": deleteCancelled}})
					switch {
					case err != nil:
						errs <- u + ": " + err.Error()
					case res.IsError:
						errs <- u + ": " + text(res)
					case len(e.asked()) != 1:
						errs <- fmt.Sprintf("%s asked %d times", u, len(e.asked()))
					}
				}()
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
			for u, ids := range want {
				if got := b.deleted(u); !sameInts(got, ids) {
					t.Errorf("%s: deleted %v, want %v", u, got, ids)
				}
			}
		})
	}
}

// New refuses approval options it cannot honour (each refusal is tested
// in package approval), saying so.
func TestApprovalOptionsRefused(t *testing.T) {
	b := newRaceBook(t)
	_, err := codemode.New(b.cat, &codemode.Options{Approvals: approval.Options{Tiers: []catalog.Tier{catalog.ReadOnly}}, Principal: &catalog.Principal{Subject: "dev"}})
	if err == nil || !strings.HasPrefix(err.Error(), "codemode: approval.Options.Tiers: ") {
		t.Fatalf("New: %v", err)
	}
}

func approvalKinds(evs []codemode.AuditEvent) []string {
	var out []string
	for _, ev := range evs {
		if strings.HasPrefix(string(ev.Kind), "approval.") {
			out = append(out, string(ev.Kind))
		}
	}
	// Calls approved together are audited in the order they arrived.
	return out
}

func sameInts(a, b []int) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// The official TypeScript SDK client (2025-11-25) answers elicitation/create
// on a stateful endpoint: accept deletes exactly the batch, decline
// deletes nothing.
func TestApprovalTypeScriptClient(t *testing.T) {
	for _, tc := range []struct{ name, action string }{{"accept", "accept"}, {"decline", "decline"}, {"write-first/accept", "accept"}, {"write-first/decline", "decline"}} {
		action := tc.action
		t.Run(tc.name, func(t *testing.T) {
			ts, b := startApprovals(t, func(o *codemode.Options) { o.HTTP.Stateful = true })
			spa := b.add("alice", "Spa", "entered")
			ids := []int{b.add("alice", "Monza", "cancelled"), b.add("alice", "Imola", "cancelled")}
			code := deleteCancelled
			writeFirst := strings.HasPrefix(tc.name, "write-first")
			if writeFirst {
				code = fmt.Sprintf(createThenDelete, spa)
			}
			got := tsclienttest.RunApproval(t, t.Context(), ts.URL, ts.token("alice"), action, code)
			if writeFirst {
				// The create before the question runs once, whatever the
				// answer, and every outcome lists it.
				if len(got.Asked) != 1 || !strings.Contains(got.Asked[0], "Already changed by this code:\n- races.createRace(") || b.creates.Load() != 1 {
					t.Fatalf("client saw %+v; creates %d", got, b.creates.Load())
				}
				if action == "accept" && (got.IsError || len(got.Result.Writes) != 2 || !sameInts(b.deleted("alice"), []int{spa})) {
					t.Fatalf("accept: %+v, deleted %v", got, b.deleted("alice"))
				}
				if action == "decline" && (got.Result.Error.Kind != "APPROVAL_DECLINED" || !strings.Contains(got.Result.Error.Message, "This execution already made 1 write") || len(got.Result.Writes) != 1 || b.deletes.Load() != 0) {
					t.Fatalf("decline: %+v", got)
				}
				return
			}
			if got.ProtocolVersion != "2025-11-25" || len(got.Asked) != 1 || !strings.Contains(got.Asked[0], "ts-approval (client test-client) asks to make 2 changes in races:") {
				t.Fatalf("client saw %+v", got)
			}
			if action == "accept" {
				if got.IsError || string(got.Result.Result) != "2" || !sameInts(b.deleted("alice"), ids) {
					t.Fatalf("accept: %+v, deleted %v", got, b.deleted("alice"))
				}
				return
			}
			if !got.IsError || got.Result.Error.Kind != "APPROVAL_DECLINED" || b.deletes.Load() != 0 {
				t.Fatalf("decline: %+v, deleted %v", got, b.deleted("alice"))
			}
		})
	}
}

// While a user decides, the execution's sandbox worker is free: with one
// worker, another user's execution runs before the first user answers.
func TestApprovalFreesWorker(t *testing.T) {
	ts, b := startApprovals(t, func(o *codemode.Options) {
		o.HTTP.Stateful = true
		withPool(t, o, 1)
	})
	id := b.add("alice", "Monza", "cancelled")
	bobDone, asking := make(chan struct{}), make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(bobDone) }) }
	defer release() // on failure too, so alice's call ends and the server closes
	e := &elicitor{action: always("accept"), before: func(int) {
		close(asking)
		<-bobDone
	}}
	alice := ts.connectAt(t, ts.token("alice"), "2025-11-25", &mcp.ClientOptions{ElicitationHandler: e.handle})
	bob := ts.connectAt(t, ts.token("bob"), "2025-11-25", nil)

	got := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := alice.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": deleteCancelled}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		got <- res
	}()
	// Wait until alice is being asked: her execution has stopped.
	<-asking
	// A deadlock here (bob waiting for alice's worker) fails the test at
	// this deadline instead of hanging the suite.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := bob.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `return (await races.listRaces({})).length`}})
	if err != nil {
		t.Fatalf("bob waited for alice's worker: %v", err)
	}
	if res.IsError {
		t.Fatalf("bob: %s", text(res))
	}
	release()
	if res := <-got; res.IsError || !sameInts(b.deleted("alice"), []int{id}) {
		t.Fatalf("alice: %s, deleted %v", text(res), b.deleted("alice"))
	}
}

// Once a call waits for approval, nothing else runs in that execution,
// even when the script catches the rejection and goes on to a write that
// needs no approval.
func TestApprovalStopsLaterCalls(t *testing.T) {
	ts, b := startApprovals(t, nil)
	id := b.add("alice", "Monza", "cancelled")
	e := &elicitor{action: always("decline")}
	cs := ts.connectAt(t, ts.token("alice"), "2026-07-28", &mcp.ClientOptions{ElicitationHandler: e.handle})
	res := run(t, cs, fmt.Sprintf(`try { await races.deleteRace({id: %d}); } catch (e) { console.log("caught"); }
await races.renameRace({id: %d, name: "renamed"});
return "went on";`, id, id))
	if st := structuredOf(t, res); st.Error == nil || st.Error.Kind != "APPROVAL_DECLINED" {
		t.Fatalf("got %s", text(res))
	}
	b.mu.Lock()
	name := b.races["alice"][0].Name
	b.mu.Unlock()
	if name != "Monza" || b.deletes.Load() != 0 {
		t.Fatalf("a call after the stop ran: name %q, deletes %d", name, b.deletes.Load())
	}
}

// With approval.Options.PerCall every call is its own question, and the
// server stops asking after maxApprovalRounds questions in one execution;
// what the accepted questions deleted is listed.
func TestApprovalPerCallBounded(t *testing.T) {
	ts, b := startApprovals(t, func(o *codemode.Options) { o.Approvals.PerCall = true; o.HTTP.Stateful = true })
	for i := range 12 {
		b.add("alice", fmt.Sprint("Race ", i), "cancelled")
	}
	e := &elicitor{action: always("accept")}
	cs := ts.connectAt(t, ts.token("alice"), "2025-11-25", &mcp.ClientOptions{ElicitationHandler: e.handle})
	res := run(t, cs, `let n = 0;
for (const r of await races.listRaces({status: "cancelled"})) { await races.deleteRace({id: r.id}); n++; }
return n;`)
	st := structuredOf(t, res)
	if st.Error == nil || st.Error.Kind != "APPROVAL_DIVERGED" || !strings.Contains(st.Error.Message, "10 times") {
		t.Fatalf("got %s", text(res))
	}
	if n := len(e.asked()); n != 10 {
		t.Fatalf("asked %d times, want 10", n)
	}
	if b.deletes.Load() != 10 || len(st.Writes) != 10 {
		t.Fatalf("deleted %d, writes listed %d; want the 10 approved, not the 11th", b.deletes.Load(), len(st.Writes))
	}
}

// Calls issued together are asked about together in both sandbox modes,
// however many there are.
func TestApprovalBatchBothModes(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeWorker, sandbox.ModeInProcess} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			ts, b := startApprovals(t, func(o *codemode.Options) { o.Sandbox.Mode = mode })
			var ids []int
			for i := range 8 {
				ids = append(ids, b.add("alice", fmt.Sprint("Race ", i), "cancelled"))
			}
			e := &elicitor{action: always("accept")}
			cs := ts.connectAt(t, ts.token("alice"), "2026-07-28", &mcp.ClientOptions{ElicitationHandler: e.handle})
			res := run(t, cs, deleteCancelled)
			if res.IsError || len(e.asked()) != 1 || strings.Count(e.asked()[0], "races.deleteRace (MUTATING)") != 8 {
				t.Fatalf("got %s; asked %q", text(res), e.asked())
			}
			if !sameInts(b.deleted("alice"), ids) {
				t.Fatalf("deleted %v", b.deleted("alice"))
			}
		})
	}
}
