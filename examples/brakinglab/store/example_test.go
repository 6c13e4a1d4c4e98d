package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
)

// Open creates and migrates the database; users sign in with a bcrypt-
// checked password, and their ID is the subject of their access tokens.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "brakinglab")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "brakinglab.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	u, _ := st.CreateUser(ctx, "usr_1", "alice", "Alice", "correct horse")
	signedIn, err := st.AuthenticateUser(ctx, "ALICE", "correct horse")
	fmt.Println(signedIn.ID == u.ID, err)
	_, err = st.AuthenticateUser(ctx, "alice", "wrong")
	fmt.Println(errors.Is(err, store.ErrInvalidCredentials))
	bySub, _ := st.UserBySubject(ctx, "usr_1")
	fmt.Println(bySub.Username)
	// Output:
	// true <nil>
	// true
	// alice
}
