package codemode_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Pending approvals are capped per principal and in all: a call over a
// cap is refused with APPROVAL_UNAVAILABLE saying what to do, is not run
// and is not stored, and no approval already given is dropped: one of
// them accepted still runs its delete once. Answering one frees a place.
// Before, 300 pending approvals of one user stayed live (92 MiB).
func TestApprovalPageCaps(t *testing.T) {
	ts, b := startPage(t, func(o *codemode.Options) {
		o.Approvals.Page.MaxPendingPerSubject = 3
		o.Approvals.Page.MaxPending = 5
	})
	alice := ts.connectAt(t, ts.token("alice"), "2026-07-28", nil)
	var links []string
	var ids []int
	for i := range 3 {
		ids = append(ids, b.add("alice", fmt.Sprint("race ", i), "cancelled"))
		links = append(links, pendingLink(t, alice, fmt.Sprintf(`await races.deleteRace({id: %d}); return 1`, ids[i])))
	}
	over := b.add("alice", "one too many", "cancelled")
	overCode := fmt.Sprintf(`await races.deleteRace({id: %d}); return 1`, over)
	res := run(t, alice, overCode)
	st := structuredOf(t, res)
	if st.Error == nil || st.Error.Kind != "APPROVAL_UNAVAILABLE" || st.ApprovalURL != "" {
		t.Fatalf("the fourth approval of alice: %s", text(res))
	}
	for _, want := range []string{"already has 3 approvals waiting for an answer", "it was not run", "Ask the user to answer", "run the same code again"} {
		if !strings.Contains(st.Error.Message, want) {
			t.Errorf("message %q does not say %q", st.Error.Message, want)
		}
	}

	// Another user is not held by alice's cap, up to the cap of all.
	bob := ts.connectAt(t, ts.token("bob"), "2026-07-28", nil)
	for i := range 2 {
		pendingLink(t, bob, fmt.Sprintf(`await races.deleteRace({id: %d}); return 1`, b.add("bob", fmt.Sprint("bob ", i), "cancelled")))
	}
	carol := ts.connectAt(t, ts.token("carol"), "2026-07-28", nil)
	res = run(t, carol, fmt.Sprintf(`await races.deleteRace({id: %d}); return 1`, b.add("carol", "c", "cancelled")))
	if st := structuredOf(t, res); st.Error == nil || st.Error.Kind != "APPROVAL_UNAVAILABLE" || !strings.Contains(st.Error.Message, "the server already holds 5 approvals waiting for an answer") {
		t.Fatalf("carol past the cap of all: %s", text(res))
	}

	// Every approval given stays answerable: accept alice's first, and
	// its re-run deletes once.
	if page := (browser{"alice"}).answer(t, links[0], "accept"); !strings.Contains(page, "Accepted.") {
		t.Fatalf("after accept:\n%s", page)
	}
	if res := run(t, alice, fmt.Sprintf(`await races.deleteRace({id: %d}); return 1`, ids[0])); res.IsError {
		t.Fatalf("re-run after accept: %s", text(res))
	}
	// The answer freed a place: the refused code now gets its link.
	pendingLink(t, alice, overCode)
	if got := b.deleted("alice"); !sameInts(got, []int{ids[0]}) || b.deletes.Load() != 1 {
		t.Fatalf("deleted %v (%d deletes), want only %d, once", got, b.deletes.Load(), ids[0])
	}
}

// Questions open over form-mode elicitation are capped per principal
// (approval.Options.MaxWaitingPerSubject): each holds its execution in
// the server while the user decides. A call over the cap is not asked and
// not run; the questions already open are answered and their calls run.
// Over Streamable HTTP (a session) and stdio.
func TestApprovalWaitingCap(t *testing.T) {
	for _, stdio := range []bool{false, true} {
		t.Run(fmt.Sprintf("stdio=%v", stdio), func(t *testing.T) {
			ts, b := startApprovals(t, func(o *codemode.Options) {
				o.HTTP.Stateful = true
				o.Approvals.MaxWaitingPerSubject = 2
			})
			asked, release := make(chan struct{}, 4), make(chan struct{})
			e := &elicitor{action: always("accept"), before: func(int) { asked <- struct{}{}; <-release }}
			cs := ts.connectRev(t, stdio, "2025-11-25", &mcp.ClientOptions{ElicitationHandler: e.handle})
			var ids []int
			for i := range 3 {
				ids = append(ids, b.add("alice", fmt.Sprint("race ", i), "cancelled"))
			}
			var wg sync.WaitGroup
			for _, id := range ids[:2] {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if res := run(t, cs, fmt.Sprintf(`await races.deleteRace({id: %d}); return 1`, id)); res.IsError {
						t.Errorf("an accepted question: %s", text(res))
					}
				}()
			}
			<-asked // two questions open
			<-asked
			res := run(t, cs, fmt.Sprintf(`await races.deleteRace({id: %d}); return 1`, ids[2]))
			close(release)
			wg.Wait()
			st := structuredOf(t, res)
			if st.Error == nil || st.Error.Kind != "APPROVAL_UNAVAILABLE" || !strings.Contains(st.Error.Message, "already has 2 approval questions open") || !strings.Contains(st.Error.Message, "it was not run") {
				t.Fatalf("the third question: %s", text(res))
			}
			if got := b.deleted("alice"); !sameInts(got, ids[:2]) {
				t.Fatalf("deleted %v, want %v", got, ids[:2])
			}
		})
	}
}
