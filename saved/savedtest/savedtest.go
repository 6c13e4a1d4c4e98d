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

// report is one call of a [state.SavedChanges] watcher.
type report struct {
	Owner    string
	Everyone bool
}

// Changes checks that a store implementing [state.SavedChanges] reports
// every change committed through either of the two stores newStores
// returns (two replicas of one empty store, or the same store twice),
// once, to a watcher of the second, and nothing for a change that was not
// stored. Reports may arrive after the change returns; the checks wait
// for each one (bounded by the test's deadline) and use a later change as
// the marker that an earlier one was not reported.
func Changes(t *testing.T, newStores func(t *testing.T) (a, b state.SavedFunctions)) {
	ctx := context.Background()
	a, b := newStores(t)
	w, ok := b.(state.SavedChanges)
	if !ok {
		t.Fatalf("%T does not implement state.SavedChanges", b)
	}
	reports := make(chan report, 64)
	stop := w.WatchSaved(func(owner string, everyone bool) {
		// The watcher may read the store: no lock of the store is held.
		if _, err := b.List(ctx, owner); err != nil {
			t.Errorf("List from the watcher: %v", err)
		}
		reports <- report{owner, everyone}
	})
	next := func(step string, want report) {
		t.Helper()
		got := <-reports
		if got.Everyone != want.Everyone || (!want.Everyone && got.Owner != want.Owner) {
			t.Fatalf("%s: reported %+v, want %+v", step, got, want)
		}
	}
	rec := func(owner, name string) state.SavedFunction {
		return state.SavedFunction{Owner: owner, Name: name, Description: "d", Code: "return 1", Input: []byte(`{"type":"object"}`),
			Tier: "READ-ONLY", Created: time.Now().UTC().Truncate(time.Microsecond)}
	}
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.Save(ctx, rec("ann", "f"), 2))
	next("a save", report{"ann", false})

	// Nothing stored, nothing reported: a save over the limit, the
	// removal and publication of a name there is none of.
	must(a.Save(ctx, rec("ann", "g"), 2))
	next("a second name", report{"ann", false})
	if _, err := a.Save(ctx, rec("ann", "h"), 2); !errors.Is(err, state.ErrSavedLimit) {
		t.Fatalf("a third name: %v", err)
	}
	if ok, err := a.Remove(ctx, "ann", "missing"); ok || err != nil {
		t.Fatalf("remove missing: %v %v", ok, err)
	}
	if ok, err := a.Publish(ctx, "ann", "missing", true); ok || err != nil {
		t.Fatalf("publish missing: %v %v", ok, err)
	}
	must(a.Save(ctx, rec("zed", "f"), 2))
	next("the save after changes that were not stored", report{"zed", false})

	must(a.Publish(ctx, "ann", "f", true))
	next("a publication", report{Everyone: true})
	must(a.Save(ctx, rec("ann", "f"), 2))
	next("a new version of a published name", report{Everyone: true})
	must(a.Publish(ctx, "ann", "f", false))
	next("a withdrawal", report{Everyone: true})
	must(a.Remove(ctx, "ann", "f"))
	next("a removal", report{"ann", false})
	must(a.Publish(ctx, "ann", "g", true))
	next("a publication", report{Everyone: true})
	must(a.Remove(ctx, "ann", "g"))
	next("the removal of a published name", report{Everyone: true})

	// After stop, a second watcher sees two changes; the first saw
	// neither (reports of one change are made before the next's).
	second := make(chan report, 4)
	stop2 := w.WatchSaved(func(owner string, everyone bool) { second <- report{owner, everyone} })
	defer stop2()
	stop()
	must(a.Save(ctx, rec("ann", "f"), 2))
	must(a.Save(ctx, rec("bob", "f"), 2))
	if r1, r2 := <-second, <-second; r1.Owner != "ann" || r2.Owner != "bob" {
		t.Fatalf("second watcher: %+v %+v", r1, r2)
	}
	if len(reports) != 0 {
		t.Fatalf("a stopped watcher was called: %+v", <-reports)
	}
}
