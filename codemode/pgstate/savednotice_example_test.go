package pgstate_test

import (
	"fmt"

	"github.com/brakinglab/codemode-go/codemode/pgstate"
)

// A host whose saved functions live in its own tables sends the notice
// inside the transaction that changes them (tx.Exec("SELECT
// pg_notify($1, $2)", channel, payload)); the replicas' States report it
// to their watchers when it commits.
func ExampleSavedNotice() {
	channel, payload := pgstate.SavedNotice("user-42", false)
	fmt.Println(channel, payload)
	channel, payload = pgstate.SavedNotice("user-42", true) // published: every principal
	fmt.Println(channel, payload)
	// Output:
	// codemode_saved =user-42
	// codemode_saved *
}
