package catalog

import "fmt"

// Approval says whether a call must be approved by the user before it
// runs. The code-mode server asks the user for the validated arguments of
// every such call and runs only the calls the user approved.
type Approval int

const (
	// ApprovalDefault leaves the decision to the server's per-tier default.
	ApprovalDefault Approval = iota
	// ApprovalRequired makes every call wait for the user's approval. Only
	// MUTATING and CREATIVE functions can require it: approval shows the
	// user a validated dry run, which a READ-ONLY function has not.
	ApprovalRequired
	// ApprovalNotRequired runs calls without asking, whatever the default.
	ApprovalNotRequired
)

// String returns "default", "required" or "not required".
func (a Approval) String() string {
	switch a {
	case ApprovalDefault:
		return "default"
	case ApprovalRequired:
		return "required"
	case ApprovalNotRequired:
		return "not required"
	}
	return fmt.Sprintf("Approval(%d)", int(a))
}

// checkApproval reports an approval setting the tier cannot honour.
func checkApproval(a Approval, t Tier) error {
	switch {
	case a < ApprovalDefault || a > ApprovalNotRequired:
		return fmt.Errorf("unknown approval setting %d", int(a))
	case a == ApprovalRequired && !t.Strict():
		return fmt.Errorf("a %s function cannot require approval: approval shows the user a dry run, and reads have none", t)
	}
	return nil
}
