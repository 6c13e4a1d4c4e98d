package functions_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/examples/brakinglab/functions"
	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb/sqldbtest"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
)

// TestQuotaIsAModelReadableConflict: at a record limit the model reads a
// conflict naming the limit and how to make room, not an internal error.
func TestQuotaIsAModelReadableConflict(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, sqldbtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	u, err := st.CreateUser(ctx, "", "quota", "Quota", "pw")
	if err != nil {
		t.Fatal(err)
	}
	c, err := functions.New(st)
	if err != nil {
		t.Fatal(err)
	}
	st.SetQuota(store.KindNotepad, 1)
	ctx = catalog.WithPrincipal(ctx, catalog.Principal{Subject: u.ID, Scopes: []string{functions.ScopeRead, functions.ScopeWrite}})
	for i, want := range []string{"", catalog.CodeConflict} {
		_, err := c.Call(ctx, "createNotepad", []byte(`{"title":"t","body":""}`))
		var ce *catalog.Error
		switch {
		case want == "" && err != nil:
			t.Fatalf("call %d: %v", i, err)
		case want != "" && (!errors.As(err, &ce) || ce.Code != want || !strings.Contains(ce.Message, "deleteNotepad")):
			t.Fatalf("call %d: %v, want a %s error naming deleteNotepad", i, err, want)
		}
	}
}
