package saved_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/saved"
)

// A host saves a function for a user and publishes it; the tier comes
// from what the code calls, and a save with problems reports them all.
// In a server, set codemode.Options.Saved to the Library instead: scripts
// then save with codemode.save and call saved.name(input).
func Example() {
	lib := saved.New(nil) // in memory; pgstate and your own stores keep them across restarts
	ctx := context.Background()
	tiers := map[string]catalog.Tier{"lab.listSessions": catalog.ReadOnly, "lab.deleteSession": catalog.Mutating}
	env := saved.NewEnv("ann", tiers, false)

	f, err := lib.Save(ctx, env, saved.Draft{
		Name:        "pruneSessions",
		Description: "Deletes the sessions of a track.",
		Code:        "const s = await lab.listSessions({ track: input.track });\nfor (const x of s) await lab.deleteSession({ id: x.id });\nreturn s.length;",
		Input:       json.RawMessage(`{"type":"object","properties":{"track":{"type":"string"}},"required":["track"]}`),
	})
	fmt.Println(f.Label(), f.Tier, f.Uses, err)
	fmt.Println(lib.Publish(ctx, "ann", "pruneSessions", true))

	_, err = lib.Save(ctx, env, saved.Draft{Name: "2fast", Code: "return lab.nope({})", Input: json.RawMessage(`{"type":"object"}`)})
	var ve *catalog.ValidationError
	if errors.As(err, &ve) {
		for _, is := range ve.Issues {
			fmt.Println(is.Path, is.Message)
		}
	}
	// Output:
	// saved.pruneSessions version 1 MUTATING [lab.deleteSession lab.listSessions] <nil>
	// <nil>
	// [name] "2fast" is not a valid JavaScript identifier (ASCII letters, digits, _ and $, not starting with a digit): choose one such as weeklyReview
	// [description] Required: say what the function does and returns, for whoever calls it next
	// [code] calls lab.nope, which is not a function you can call; check the name with codemode.search
}

// A Library tells its watchers of every save, publication and removal,
// made from Go or by a script; codemode watches to audit them and to
// notify the connected clients they concern.
func ExampleLibrary_Watch() {
	lib := saved.New(nil)
	ctx := context.Background()
	stop := lib.Watch(func(_ context.Context, c saved.Change) {
		fmt.Println(c.Kind, c.Owner, c.Name, c.Version, c.Tier, c.CodeSHA256[:12], c.Everyone)
	})
	defer stop()
	env := saved.NewEnv("ann", nil, false)
	draft := saved.Draft{Name: "one", Description: "Returns 1.", Code: "return 1", Input: json.RawMessage(`{"type":"object"}`)}
	_, _ = lib.Save(ctx, env, draft)
	_, _ = lib.Save(ctx, env, draft)
	_ = lib.Publish(ctx, "ann", "one", true)
	_ = lib.Remove(ctx, "ann", "one")
	_ = lib.Remove(ctx, "ann", "one") // nothing left: no change
	// Output:
	// saved ann one 1 READ-ONLY 486d9affb60d false
	// saved ann one 2 READ-ONLY 486d9affb60d false
	// published ann one 2 READ-ONLY 486d9affb60d true
	// removed ann one 2 READ-ONLY 486d9affb60d true
}

// WatchAll reports the changes of every Library that shares the store:
// here two replicas in one process share one in-memory store; with
// pgstate's store, replicas in other processes report theirs through
// PostgreSQL. codemode watches it to send notifications/tools/list_changed
// to the sessions a change concerns. A save that fails changes nothing
// and reports nothing.
func ExampleLibrary_WatchAll() {
	store := saved.NewMemory()
	a, b := saved.New(&saved.Options{Store: store}), saved.New(&saved.Options{Store: store})
	stop := b.WatchAll(func(owner string, everyone bool) { fmt.Println("b:", owner, everyone) })
	defer stop()
	ctx := context.Background()
	env := saved.NewEnv("ann", nil, false)
	draft := saved.Draft{Name: "one", Description: "Returns 1.", Code: "return 1", Input: json.RawMessage(`{"type":"object"}`)}
	_, _ = a.Save(ctx, env, draft)
	_, err := a.Save(ctx, env, saved.Draft{Name: "two"}) // no description, code or input
	fmt.Println(err != nil)
	_ = a.Publish(ctx, "ann", "one", true)
	_ = a.Remove(ctx, "ann", "one")
	// Output:
	// b: ann false
	// true
	// b: ann true
	// b: ann true
}
