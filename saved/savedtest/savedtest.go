// Package savedtest checks that a [state.SavedFunctions] store keeps the
// contract its documentation states, so that the in-memory, SQLite and
// PostgreSQL stores (and a host's own) behave alike.
package savedtest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/codemode/state"
)

// Store runs the contract's checks against the stores newStore returns,
// each empty.
func Store(t *testing.T, newStore func(t *testing.T) state.SavedFunctions) {
	ctx := context.Background()
	rec := func(owner, name, code string) state.SavedFunction {
		return state.SavedFunction{Owner: owner, Name: name, Description: "d", Code: code, Input: []byte(`{"type":"object"}`),
			Tier: "READ-ONLY", Uses: []string{"lab.list"}, Created: time.Now().UTC().Truncate(time.Microsecond)}
	}
	t.Run("versions", func(t *testing.T) {
		s := newStore(t)
		for i, code := range []string{"return 1", "return 2", "return 3"} {
			v, err := s.Save(ctx, rec("ann", "f", code), 10)
			if err != nil || v != i+1 {
				t.Fatalf("save %d: version %d, %v", i, v, err)
			}
		}
		latest, err := s.Get(ctx, "ann", "f", 0)
		if err != nil || latest == nil || latest.Version != 3 || latest.Code != "return 3" || !slices.Equal(latest.Uses, []string{"lab.list"}) {
			t.Fatalf("latest %+v %v", latest, err)
		}
		first, err := s.Get(ctx, "ann", "f", 1)
		if err != nil || first == nil || first.Code != "return 1" || string(first.Input) != `{"type":"object"}` {
			t.Fatalf("version 1 %+v %v", first, err)
		}
		if f, err := s.Get(ctx, "ann", "f", 9); f != nil || err != nil {
			t.Fatalf("version 9 %+v %v", f, err)
		}
		h, err := s.History(ctx, "ann", "f")
		if err != nil || len(h) != 3 || h[0].Version != 1 || h[2].Version != 3 {
			t.Fatalf("history %+v %v", h, err)
		}
	})
	t.Run("owners", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Save(ctx, rec("ann", "f", "return 1"), 10); err != nil {
			t.Fatal(err)
		}
		if f, err := s.Get(ctx, "bob", "f", 0); f != nil || err != nil {
			t.Fatalf("bob reads ann's: %+v %v", f, err)
		}
		if l, err := s.List(ctx, "bob"); len(l) != 0 || err != nil {
			t.Fatalf("bob lists %+v %v", l, err)
		}
		if ok, err := s.Remove(ctx, "bob", "f"); ok || err != nil {
			t.Fatalf("bob removes ann's: %v %v", ok, err)
		}
		if f, err := s.Published(ctx, "f", 0); f != nil || err != nil {
			t.Fatalf("unpublished is published: %+v %v", f, err)
		}
		if ok, err := s.Publish(ctx, "ann", "f", true); !ok || err != nil {
			t.Fatalf("publish: %v %v", ok, err)
		}
		if _, err := s.Save(ctx, rec("ann", "f", "return 2"), 10); err != nil {
			t.Fatal(err)
		}
		p, err := s.Published(ctx, "f", 0)
		if err != nil || p == nil || p.Owner != "ann" || p.Version != 2 || !p.Published {
			t.Fatalf("published %+v %v", p, err)
		}
		if l, err := s.List(ctx, "bob"); len(l) != 1 || l[0].Version != 2 || err != nil {
			t.Fatalf("bob lists %+v %v", l, err)
		}
		if ok, err := s.Publish(ctx, "bob", "f", true); ok || err != nil {
			t.Fatalf("bob publishes a name he lacks: %v %v", ok, err)
		}
		if ok, err := s.Remove(ctx, "ann", "f"); !ok || err != nil {
			t.Fatalf("remove: %v %v", ok, err)
		}
		if l, err := s.List(ctx, "ann"); len(l) != 0 || err != nil {
			t.Fatalf("after removal %+v %v", l, err)
		}
		if h, err := s.History(ctx, "ann", "f"); len(h) != 0 || err != nil {
			t.Fatalf("history after removal %+v %v", h, err)
		}
		if v, err := s.Save(ctx, rec("ann", "f", "return 9"), 10); v != 1 || err != nil {
			t.Fatalf("saved again: %d %v", v, err)
		}
	})
	t.Run("limit", func(t *testing.T) {
		s := newStore(t)
		for _, n := range []string{"a", "b"} {
			if _, err := s.Save(ctx, rec("ann", n, "return 1"), 2); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Save(ctx, rec("ann", "a", "return 2"), 2); err != nil {
			t.Fatalf("a new version: %v", err)
		}
		if _, err := s.Save(ctx, rec("ann", "c", "return 1"), 2); !errors.Is(err, state.ErrSavedLimit) {
			t.Fatalf("third name: %v", err)
		}
		if f, _ := s.Get(ctx, "ann", "c", 0); f != nil {
			t.Fatalf("refused save stored %+v", f)
		}
		if _, err := s.Save(ctx, rec("bob", "c", "return 1"), 2); err != nil {
			t.Fatalf("another owner: %v", err)
		}
	})
}
