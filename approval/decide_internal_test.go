package approval

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/sandbox"
)

// TestApprovalDecisions checks how a resumed run decides each call: from
// the record, live when approved exactly, diverged when it is neither,
// with reads that the asking run did not see answered run again. No call
// here reaches a catalog: a dry run would, and none is expected.
func TestApprovalDecisions(t *testing.T) {
	a := &Policy{required: map[string]catalog.Tier{"ns.del": catalog.Mutating}, Service: &Service{}}
	h := tiersOnly{"ns.del": catalog.Mutating, "ns.get": catalog.ReadOnly, "ns.add": catalog.Creative}
	rec := []recordedCall{
		{Fn: "ns.get", Args: json.RawMessage(`{"id":1}`), Out: json.RawMessage(`"one"`)},
		{Fn: "ns.add", Args: json.RawMessage(`{"n":"x"}`), Out: json.RawMessage(`{"id":9}`), Write: true},
	}
	stop := &stopCall{Index: 2, approvedCall: approvedCall{Fn: "ns.del", Args: json.RawMessage(`{"id":7}`)}}
	resumed := func(perCall bool) *approvalRun {
		ex := &approvalExec{Record: rec, Stop: stop}
		ex.grant([]pendingCall{{approvedCall: stop.approvedCall, Tier: catalog.Mutating, Index: 2}}, perCall)
		return newApprovalRun(a, context.Background(), ex, h)
	}
	type call struct {
		fn, args string
		index    int
	}
	cases := []struct {
		name    string
		perCall bool
		calls   []call
		want    []string // "replay", "live", "diverged", "stopped"
	}{
		{"faithful", false, []call{{"ns.get", `{"id":1}`, 0}, {"ns.add", `{"n":"x"}`, 1}, {"ns.del", `{"id":7}`, 2}, {"ns.del", `{"id":8}`, 3}},
			[]string{"replay", "replay", "live", "live"}},
		{"recorded calls in another order", false, []call{{"ns.add", `{"n":"x"}`, 0}, {"ns.get", `{"id":1}`, 1}, {"ns.del", `{"id":7}`, 2}},
			[]string{"replay", "replay", "live"}},
		{"the approved call with other arguments", false, []call{{"ns.get", `{"id":1}`, 0}, {"ns.add", `{"n":"x"}`, 1}, {"ns.del", `{"id":8}`, 2}, {"ns.del", `{"id":7}`, 3}},
			[]string{"replay", "replay", "diverged", "stopped"}},
		{"the approved call before the record is used up", false, []call{{"ns.del", `{"id":7}`, 0}, {"ns.get", `{"id":1}`, 1}},
			[]string{"live", "replay"}},
		{"another function's write where the approved call was", false, []call{{"ns.get", `{"id":1}`, 0}, {"ns.add", `{"n":"x"}`, 1}, {"ns.add", `{"n":"y"}`, 2}},
			[]string{"replay", "replay", "diverged"}},
		{"a write the record does not hold, before the stop", false, []call{{"ns.get", `{"id":1}`, 0}, {"ns.add", `{"n":"z"}`, 1}},
			[]string{"replay", "diverged"}},
		{"a read the record does not hold, before the stop, runs again", false, []call{{"ns.get", `{"id":2}`, 0}, {"ns.get", `{"id":1}`, 1}},
			[]string{"live", "replay"}},
		{"per call: a further call of the function is not covered", true, []call{{"ns.get", `{"id":1}`, 0}, {"ns.add", `{"n":"x"}`, 1}, {"ns.del", `{"id":7}`, 2}, {"ns.del", `{"id":7}`, 3}},
			[]string{"replay", "replay", "live", "ask"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := resumed(c.perCall)
			for i, cl := range c.calls {
				var got string
				if i == len(c.calls)-1 && c.want[i] == "ask" {
					// The last call would be validated and asked about:
					// check only that nothing answers it without asking.
					r.mu.Lock()
					_, left := r.replay.firstLeft()
					approved := len(r.approved)
					r.mu.Unlock()
					if left || approved != 0 || r.grants[cl.fn] {
						t.Fatalf("call %d: record left %v, approvals left %d, grant %v: it would not be asked about", i, left, approved, r.grants[cl.fn])
					}
					continue
				}
				d := r.intercept(cl.fn, sandbox.CallPosition{Index: cl.index}, true, json.RawMessage(cl.args))
				switch {
				case d.live:
					got = "live"
				case errors.Is(d.err, errDiverged):
					got = "diverged"
				case errors.As(d.err, new(errApprovalStopped)):
					got = "stopped"
				case d.out != nil:
					got = "replay"
				default:
					got = "error: " + d.err.Error()
				}
				if got != c.want[i] {
					t.Fatalf("call %d %s(%s): %s, want %s", i, cl.fn, cl.args, got, c.want[i])
				}
			}
		})
	}
}

// tiersOnly is a Caller of the functions it lists whose dry runs fail:
// the tests that use it expect none.
type tiersOnly map[string]catalog.Tier

func (t tiersOnly) Tier(fn string) (catalog.Tier, bool) {
	tier, ok := t[fn]
	return tier, ok
}

func (tiersOnly) DryRun(context.Context, string, json.RawMessage, json.RawMessage) error {
	return errors.New("unexpected dry run")
}
