package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/sandbox"
)

// BenchmarkApprovalRecordOverhead is what the record costs an execution
// that needs no approval, beyond the sandbox's own work: a run's
// bookkeeping and the record of 30 host calls of a read-only function
// (the coaching script makes about that many).
func BenchmarkApprovalRecordOverhead(b *testing.B) {
	a := &Policy{required: map[string]catalog.Tier{"deleteLap": catalog.Mutating}}
	args := json.RawMessage(`{"sessionId":"s_1","lap":12,"corners":[1,2,3]}`)
	out := json.RawMessage(`{"lap":12,"timeMs":93123,"corners":[{"i":1,"brakeM":112.5}]}`)
	ex := &approvalExec{}
	h := tiersOnly{"getLap": catalog.ReadOnly}
	b.ReportAllocs()
	for b.Loop() {
		r := newApprovalRun(a, context.Background(), ex, h)
		for i := range 30 {
			r.awaitTurn(context.Background(), i)
			d := r.intercept("getLap", sandbox.CallPosition{Index: i}, true, args)
			r.pass(i)
			if !d.live {
				b.Fatal("a read was intercepted")
			}
			r.ran("getLap", catalog.ReadOnly, args, out, nil)
			r.exit()
		}
	}
}

// BenchmarkApprovalPageLookup is what the approval page adds to every
// execution of code that may need approval: the in-process store's
// lookup of a pending approval for the run (here among 1,000 others),
// which finds none.
func BenchmarkApprovalPageLookup(b *testing.B) {
	c := newPendingCache(0, 0)
	ctx := context.Background()
	now := time.Now()
	for i := range 1000 {
		st := &approvalState{Subject: fmt.Sprint("user-", i), Tool: "execute_code", Code: "abc"}
		if err := c.Put(ctx, state.PendingApproval{ID: fmt.Sprint(i), Match: pageMatch(st), Subject: st.Subject, Created: now, Expires: now.Add(time.Minute), State: []byte("{}")}); err != nil {
			b.Fatal(err)
		}
	}
	st := &approvalState{Subject: "someone-else", Tool: "execute_code", Code: "abc"}
	b.ReportAllocs()
	for b.Loop() {
		if p, _ := c.Latest(ctx, pageMatch(st)); p != nil {
			b.Fatal("found")
		}
	}
}
