package pgstate

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/brakinglab/codemode-go/internal/pgtest"
)

// The sweep deletes buckets that have refilled and calls past their TTL,
// and keeps the rest.
func TestSweep(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s, err := New(ctx, pool, &Options{CallTTL: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	fast, slow := s.Limiter("fast", 1e6, 2), s.Limiter("slow", 0.001, 2)
	for _, l := range []*Limiter{fast, slow} {
		if d, err := l.Take(ctx, "k", 1); d != 0 || err != nil {
			t.Fatalf("%s: take: %v, %v", l.name, d, err)
		}
	}
	release, err := s.Cancellations().Register(ctx, "key", "n:1", func() {})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	count := func(q string) int {
		var n int
		if err := pool.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The database clock must move past the call's TTL and refill "fast".
	if _, err := pool.Exec(ctx, "SELECT pg_sleep(0.01)"); err != nil {
		t.Fatal(err)
	}
	s.sweep(ctx)
	if n := count("SELECT count(*) FROM codemode_buckets WHERE name = 'fast'"); n != 0 {
		t.Errorf("%d refilled buckets kept", n)
	}
	if n := count("SELECT count(*) FROM codemode_buckets WHERE name = 'slow'"); n != 1 {
		t.Errorf("%d partly used buckets kept, want 1", n)
	}
	if n := count("SELECT count(*) FROM codemode_calls"); n != 0 {
		t.Errorf("%d expired calls kept", n)
	}
}
