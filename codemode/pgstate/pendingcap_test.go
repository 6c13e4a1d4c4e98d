package pgstate_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/brakinglab/codemode-go/codemode/pgstate"
	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/internal/pgtest"
)

// openCapped is openState with the caps on pending approvals.
func openCapped(t *testing.T, dbURL string, perSubject, total int) *pgstate.State {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	st, err := pgstate.New(ctx, pool, &pgstate.Options{MaxPendingPerSubject: perSubject, MaxPending: total})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Pending approvals are capped per principal and in all, across
// replicas: two replicas putting at once store exactly the cap, the rest
// are refused with a *state.PendingLimitError and not stored; answered or
// expired approvals do not count, and nothing already stored is dropped.
func TestPendingApprovalCaps(t *testing.T) {
	db := pgtest.NewDatabase(t)
	replicas := []*pgstate.PendingApprovals{openCapped(t, db, 3, 5).PendingApprovals(), openCapped(t, db, 3, 5).PendingApprovals()}
	ctx := context.Background()
	now := time.Now()
	n := 0
	put := func(r *pgstate.PendingApprovals, sub string, created time.Time) (string, error) {
		n++
		id := fmt.Sprintf("%s-%d", sub, n)
		return id, r.Put(ctx, state.PendingApproval{ID: id, Match: id, Subject: sub, Created: created, Expires: created.Add(10 * time.Minute), State: []byte("{}")})
	}

	// Ten concurrent Puts of alice on two replicas: three are stored.
	var mu sync.Mutex
	var stored []string
	refused := 0
	var wg sync.WaitGroup
	for i := range 10 {
		mu.Lock()
		n++
		id := fmt.Sprintf("alice-%d", n)
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := replicas[i%2].Put(ctx, state.PendingApproval{ID: id, Match: id, Subject: "alice", Created: now, Expires: now.Add(10 * time.Minute), State: []byte("{}")})
			mu.Lock()
			defer mu.Unlock()
			var full *state.PendingLimitError
			switch {
			case err == nil:
				stored = append(stored, id)
			case errors.As(err, &full) && full.Subject == "alice" && full.Limit == 3:
				refused++
			default:
				t.Errorf("put %s: %v", id, err)
			}
		}()
	}
	wg.Wait()
	if len(stored) != 3 || refused != 7 {
		t.Fatalf("%d stored, %d refused; want 3 and 7", len(stored), refused)
	}

	// Bob fills the cap of all (5).
	for range 2 {
		if _, err := put(replicas[1], "bob", now); err != nil {
			t.Fatal(err)
		}
	}
	_, err := put(replicas[0], "carol", now)
	var full *state.PendingLimitError
	if !errors.As(err, &full) || full.Subject != "" || full.Limit != 5 {
		t.Fatalf("carol past the cap of all: %v", err)
	}
	// An answer frees a place; the approvals stored are all still there.
	if ok, err := replicas[0].Answer(ctx, stored[0], "decline", now); !ok || err != nil {
		t.Fatalf("answer: %v, %v", ok, err)
	}
	id, err := put(replicas[0], "carol", now)
	if err != nil {
		t.Fatalf("carol after an answer: %v", err)
	}
	for _, id := range append(stored, id) {
		if p, err := replicas[1].Get(ctx, id); p == nil || err != nil {
			t.Errorf("%s: %v, %v", id, p, err)
		}
	}
	// Expired approvals do not count: eleven minutes on, alice has room.
	if _, err := put(replicas[1], "alice", now.Add(11*time.Minute)); err != nil {
		t.Fatalf("alice after her approvals expired: %v", err)
	}

	pool, err := pgxpool.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pgstate.New(ctx, pool, &pgstate.Options{MaxPending: -1}); err == nil {
		t.Fatal("a negative cap accepted")
	}
}
