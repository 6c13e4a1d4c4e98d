package codemode_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

type pauseIn struct {
	Ms  int    `json:"ms"`
	Tag string `json:"tag" validate:"required"`
}

// startResumeBook serves a raceBook with one more read, races.pause,
// which answers its tag after ms milliseconds, in sandbox mode mode.
func startResumeBook(t *testing.T, mode sandbox.Mode, rv replayRevision) (*testServer, *raceBook) {
	t.Helper()
	b := newRaceBook(t)
	catalog.MustAdd(b.cat, catalog.Func[pauseIn, string]{
		Name: "pause", Description: "Answers tag after ms milliseconds.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, in pauseIn) (string, error) {
			select {
			case <-time.After(time.Duration(in.Ms) * time.Millisecond):
			case <-ctx.Done():
				return "", ctx.Err()
			}
			return in.Tag, nil
		},
	})
	ts := startServerFor(t, b.cat, func(o *codemode.Options) {
		o.Approvals.Tiers = []catalog.Tier{catalog.Mutating}
		o.Limits.Timeout = time.Minute
		o.Sandbox.Mode = mode
		o.HTTP.Stateful = rv.stateful
	})
	return ts, b
}

// forEachResume runs f in both sandbox modes and every way of asking.
func forEachResume(t *testing.T, f func(t *testing.T, mode sandbox.Mode, rv replayRevision)) {
	for _, mode := range []sandbox.Mode{sandbox.ModeInProcess, sandbox.ModeWorker} {
		for _, rv := range replayRevisions {
			t.Run(fmt.Sprint(mode)+"/"+rv.name, func(t *testing.T) { f(t, mode, rv) })
		}
	}
}

// A Promise.all that mixes a call needing approval with reads resumes,
// wherever the approved call stands in the group: the reads that ran are
// replayed, the approved call runs once, live.
func TestApprovalParallelResume(t *testing.T) {
	scripts := map[string]string{
		"approval first": `const [d, a, b] = await Promise.all([races.deleteRace({id: %d}), races.listRaces({}), races.pause({ms: 30, tag: "p"})]); return [d.deleted, a.length, b];`,
		"approval last":  `const [a, b, d] = await Promise.all([races.listRaces({}), races.pause({ms: 30, tag: "p"}), races.deleteRace({id: %d})]); return [d.deleted, a.length, b];`,
	}
	forEachResume(t, func(t *testing.T, mode sandbox.Mode, rv replayRevision) {
		for name, src := range scripts {
			t.Run(name, func(t *testing.T) {
				ts, b := startResumeBook(t, mode, rv)
				id := b.add("alice", "Monza", "cancelled")
				b.add("alice", "Spa", "entered")
				e := &elicitor{action: always("accept")}
				cs := ts.connectRev(t, rv.stdio, rv.version, &mcp.ClientOptions{ElicitationHandler: e.handle})
				res := run(t, cs, fmt.Sprintf(src, id))
				if res.IsError {
					t.Fatalf("got %s\n%s", text(res), ts.trail(res))
				}
				// With the deletion issued first, the list runs beside it
				// and may see the race deleted or not, as without approvals.
				if st := structuredOf(t, res); string(st.Result) != `[1,2,"p"]` && (name == "approval last" || string(st.Result) != `[1,1,"p"]`) {
					t.Fatalf("result %s", st.Result)
				}
				if len(e.asked()) != 1 || b.deletes.Load() != 1 || !sameInts(b.deleted("alice"), []int{id}) {
					t.Fatalf("asked %d times, deleted %v (%d runs)", len(e.asked()), b.deleted("alice"), b.deletes.Load())
				}
			})
		}
	})
}

// A Promise.race decides which race is deleted. The resumed run replays
// the recorded reads at once, in the order they were made; only the
// recorded order of their answers gives the race the same winner, so the
// race deleted is the one the user was shown.
func TestApprovalRaceReplay(t *testing.T) {
	forEachResume(t, func(t *testing.T, mode sandbox.Mode, rv replayRevision) {
		ts, b := startResumeBook(t, mode, rv)
		slow := b.add("alice", "Slow", "entered")
		fast := b.add("alice", "Fast", "entered")
		e := &elicitor{action: always("accept")}
		cs := ts.connectRev(t, rv.stdio, rv.version, &mcp.ClientOptions{ElicitationHandler: e.handle})
		res := run(t, cs, fmt.Sprintf(`const w = await Promise.race([races.pause({ms: 150, tag: "slow"}), races.pause({ms: 1, tag: "fast"})]);
await races.deleteRace({id: w === "slow" ? %d : %d});
return w;`, slow, fast))
		if res.IsError {
			t.Fatalf("got %s\n%s", text(res), ts.trail(res))
		}
		asked := e.asked()
		if len(asked) != 1 || !strings.Contains(asked[0], fmt.Sprint("id: ", fast)) {
			t.Fatalf("asked %q, want the fast race's deletion", asked)
		}
		if !sameInts(b.deleted("alice"), []int{fast}) {
			t.Fatalf("deleted %v, the user approved deleting %d", b.deleted("alice"), fast)
		}
	})
}

// Code that reads Math.random more often than a resumed run can replay
// is refused before the user is asked: a resumed run could make another
// call than the one shown.
func TestApprovalEntropyPastBound(t *testing.T) {
	ts, b := startResumeBook(t, sandbox.ModeInProcess, replayRevisions[0])
	a := b.add("alice", "A", "entered")
	e := &elicitor{action: always("accept")}
	cs := ts.connectRev(t, false, "2026-07-28", &mcp.ClientOptions{ElicitationHandler: e.handle})
	res := run(t, cs, fmt.Sprintf(`let s = 0; for (let i = 0; i < %d; i++) s += Math.random();
await races.createRace({name: "before"});
await races.deleteRace({id: %d}); return s > 0;`, sandbox.MaxEntropyValues+10, a))
	st := structuredOf(t, res)
	if st.Error == nil || st.Error.Kind != "APPROVAL_DIVERGED" || !strings.Contains(st.Error.Message, "Math.random more than 4096 times") {
		t.Fatalf("got %s", text(res))
	}
	if len(e.asked()) != 0 || b.deletes.Load() != 0 {
		t.Fatalf("asked %d times, deleted %d", len(e.asked()), b.deletes.Load())
	}
	if b.creates.Load() != 1 || len(st.Writes) != 1 {
		t.Fatalf("creates %d, writes listed %+v: the create made before stays and is listed", b.creates.Load(), st.Writes)
	}
}

// Each run of an execution starts with the discovery budget the asking
// run started with: a budget spent by the run before would make the
// resumed run take the other branch.
func TestApprovalDiscoveryBudgetPerRun(t *testing.T) {
	forEachResume(t, func(t *testing.T, mode sandbox.Mode, rv replayRevision) {
		if mode == sandbox.ModeWorker && rv.stdio {
			t.Skip("covered by the other ways of asking in worker mode")
		}
		ts, b := startResumeBook(t, mode, rv)
		want := b.add("alice", "Want", "entered")
		other := b.add("alice", "Other", "entered")
		e := &elicitor{action: always("accept")}
		cs := ts.connectRev(t, rv.stdio, rv.version, &mcp.ClientOptions{ElicitationHandler: e.handle})
		res := run(t, cs, fmt.Sprintf(`let ok = 0;
for (let i = 0; i < 40; i++) { try { await codemode.describe(["deleteRace"]); ok++; } catch {} }
await races.deleteRace({id: ok === 40 ? %d : %d});
let after = 0;
for (let i = 0; i < 9; i++) { try { await codemode.search("race"); after++; } catch {} }
return [ok, after];`, want, other))
		if res.IsError {
			t.Fatalf("got %s\n%s", text(res), ts.trail(res))
		}
		if st := structuredOf(t, res); string(st.Result) != `[40,9]` {
			t.Fatalf("result %s", st.Result)
		}
		if !sameInts(b.deleted("alice"), []int{want}) {
			t.Fatalf("deleted %v", b.deleted("alice"))
		}
	})
}

// A client that cannot ask gets APPROVAL_UNAVAILABLE listing every call
// that needed approval, and no advice it cannot follow: nothing says the
// execution resumes once the user answers, or to fix an error and run
// again.
func TestApprovalUnavailableAdvice(t *testing.T) {
	ts, b := startResumeBook(t, sandbox.ModeInProcess, replayRevisions[1])
	ids := []int{b.add("alice", "A", "cancelled"), b.add("alice", "B", "cancelled"), b.add("alice", "C", "cancelled")}
	cs := ts.connectRev(t, false, "2025-11-25", nil)
	res := run(t, cs, fmt.Sprintf(`await Promise.all([%d, %d, %d].map(id => races.deleteRace({id})));`, ids[0], ids[1], ids[2]))
	st := structuredOf(t, res)
	if st.Error == nil || st.Error.Kind != string(approval.KindUnavailable) {
		t.Fatalf("got %s", text(res))
	}
	for _, id := range ids {
		if !strings.Contains(st.Error.Message, fmt.Sprintf(`races.deleteRace({"id":%d})`, id)) {
			t.Fatalf("message does not list deleting %d: %s", id, st.Error.Message)
		}
	}
	all := text(res) + fmt.Sprint(res.StructuredContent)
	for _, bad := range []string{"resumes once the user answers", "fix the error and run again"} {
		if strings.Contains(all, bad) {
			t.Fatalf("the answer says %q:\n%s", bad, text(res))
		}
	}
	if b.deletes.Load() != 0 {
		t.Fatal("deleted")
	}
}

// A read cut off by the run's end answers with an error the script never
// read: the resumed run makes it again instead of handing that error
// back, and the approved deletion runs once.
func TestApprovalCutOffReadRunsAgain(t *testing.T) {
	b := newRaceBook(t)
	var calls atomic.Int64
	catalog.MustAdd(b.cat, catalog.Func[struct{}, string]{
		Name: "flaky", Description: "Hangs on its first call until cut off, then answers.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, _ struct{}) (string, error) {
			if calls.Add(1) == 1 {
				<-ctx.Done()
				return "", catalog.Conflict("interrupted")
			}
			return "fresh", nil
		},
	})
	ts := startServerFor(t, b.cat, func(o *codemode.Options) {
		o.Approvals.Tiers = []catalog.Tier{catalog.Mutating}
		o.Limits.Timeout = time.Second
	})
	id := b.add("alice", "A", "cancelled")
	e := &elicitor{action: always("accept")}
	cs := ts.connectRev(t, true, "2025-11-25", &mcp.ClientOptions{ElicitationHandler: e.handle})
	res := run(t, cs, fmt.Sprintf(`const [r, d] = await Promise.allSettled([races.flaky({}), races.deleteRace({id: %d})]);
return [r.status, r.value ?? r.reason.message, d.status];`, id))
	if st := structuredOf(t, res); res.IsError || string(st.Result) != `["fulfilled","fresh","fulfilled"]` {
		t.Fatalf("got %s", text(res))
	}
	if len(e.asked()) != 1 || b.deletes.Load() != 1 {
		t.Fatalf("asked %d, deleted %d", len(e.asked()), b.deletes.Load())
	}
}
