package state_test

import (
	"errors"
	"fmt"

	"github.com/brakinglab/codemode-go/codemode/state"
)

// A PendingApprovals store refuses an approval over a cap with a
// *PendingLimitError; the approval page tells the model which cap it hit.
func ExamplePendingLimitError() {
	err := fmt.Errorf("storing: %w", &state.PendingLimitError{Subject: "alice", Limit: state.DefaultMaxPendingPerSubject})
	var full *state.PendingLimitError
	if errors.As(err, &full) {
		fmt.Println(full.Subject, full.Limit)
		fmt.Println(full)
	}
	// Output:
	// alice 20
	// codemode: "alice" already has 20 approvals waiting for an answer, the most one principal may have
}
