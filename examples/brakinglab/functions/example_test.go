package functions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/examples/brakinglab/functions"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
)

// Build the catalog over a store and call it as a signed-in user: the
// principal's Subject is the store user ID.
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "brakinglab")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st, _ := store.Open(ctx, filepath.Join(dir, "brakinglab.db"))
	defer st.Close()
	u, _ := st.CreateUser(ctx, "usr_1", "alice", "Alice", "correct horse")
	c, err := functions.New(st)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx = catalog.WithPrincipal(ctx, catalog.Principal{Subject: u.ID, Scopes: []string{functions.ScopeRead, functions.ScopeWrite}})

	c.Call(ctx, "addTrackNote", json.RawMessage(`{"trackName":"spa","cornerIndex":0,"note":"Brake at the 150 m board."}`))
	res, _ := c.Call(ctx, "getTrackNotes", json.RawMessage(`{"trackName":"Spa"}`))
	var notes []struct{ TrackName, CornerName, Note string }
	json.Unmarshal(res, &notes)
	fmt.Println(notes[0].TrackName, "/", notes[0].CornerName, "/", notes[0].Note)

	_, err = c.Call(ctx, "getNotepad", json.RawMessage(`{"notepadId":"note_0000"}`))
	fmt.Println(err)
	// Output:
	// Spa-Francorchamps / La Source / Brake at the 150 m board.
	// notepad "note_0000" not found; getNotepads lists yours
}
