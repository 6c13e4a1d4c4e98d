package approval_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
)

// A Policy says which of the functions a server serves need approval:
// those of the tiers in Options.Tiers, unless a function says otherwise.
func ExampleService_Policy() {
	svc, err := approval.New(approval.Options{Tiers: []catalog.Tier{catalog.Mutating}}, approval.Config{})
	if err != nil {
		log.Fatal(err)
	}
	p := svc.Policy([]approval.Func{
		{Name: "garage.getLap", Tier: catalog.ReadOnly},
		{Name: "garage.deleteLap", Tier: catalog.Mutating},
		{Name: "garage.renameLap", Tier: catalog.Mutating, Approval: catalog.ApprovalNotRequired},
		{Name: "garage.addNote", Tier: catalog.Creative, Approval: catalog.ApprovalRequired},
	})
	for _, fn := range []string{"garage.getLap", "garage.deleteLap", "garage.renameLap", "garage.addNote"} {
		fmt.Println(fn, p.Required(fn))
	}
	fmt.Println(p.Len(), "need approval")

	_, err = approval.New(approval.Options{Tiers: []catalog.Tier{catalog.ReadOnly}}, approval.Config{})
	fmt.Println(err)
	// Output:
	// garage.getLap false
	// garage.deleteLap true
	// garage.renameLap false
	// garage.addNote true
	// 2 need approval
	// approval.Options.Tiers: READ-ONLY functions cannot require approval: a read has no dry run to show the user
}

// The in-process spent approvals spend an approval once; a retry of the
// same request after the first use settled gets its outcome back.
func ExampleNewSpentMemory() {
	spent := approval.NewSpentMemory()
	ctx := context.Background()
	expires := time.Now().Add(time.Minute)
	first, _, _ := spent.Spend(ctx, "id-1", "request-a", expires)
	fmt.Println("first use:", first)
	_ = spent.Settle(ctx, "id-1", []byte(`{"ok":true}`))
	first, outcome, _ := spent.Spend(ctx, "id-1", "request-a", expires)
	fmt.Println("retry:", first, string(outcome))
	first, outcome, _ = spent.Spend(ctx, "id-1", "request-b", expires)
	fmt.Println("another request:", first, outcome == nil)
	// Output:
	// first use: true
	// retry: false {"ok":true}
	// another request: false true
}
