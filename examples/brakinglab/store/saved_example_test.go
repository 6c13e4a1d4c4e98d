package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
)

// Two servers of one process on one SQLite file: a change saved through
// one is reported to the watchers of the other, right after its commit.
// (On PostgreSQL, give each replica's SavedFunctions WithChanges(st.SavedFunctions())
// of its pgstate.State.)
func ExampleSavedFunctions_WatchSaved() {
	dir, _ := os.MkdirTemp("", "brakinglab")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	path := filepath.Join(dir, "brakinglab.db")
	one, err := store.Open(ctx, path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer one.Close()
	two, err := store.Open(ctx, path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer two.Close()

	stop := two.SavedFunctions().WatchSaved(func(owner string, everyone bool) {
		fmt.Println("changed:", owner, everyone)
	})
	defer stop()
	fns := one.SavedFunctions()
	_, err = fns.Save(ctx, state.SavedFunction{Owner: "usr_1", Name: "lapCount", Description: "Counts laps.",
		Code: "return 1", Input: []byte(`{"type":"object"}`), Tier: "READ-ONLY", Created: time.Now()}, 0)
	fmt.Println(err)
	fns.Publish(ctx, "usr_1", "lapCount", true)
	fns.Remove(ctx, "usr_1", "missing") // nothing removed, nothing reported
	// Output:
	// changed: usr_1 false
	// <nil>
	// changed: usr_1 true
}
