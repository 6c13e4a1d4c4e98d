package pgstate_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/brakinglab/codemode-go/codemode/pgstate"
	"github.com/brakinglab/codemode-go/internal/pgtest"
)

// BenchmarkPerExecution measures what pgstate adds to one execution: a
// Take on the shared limiter, and registering and releasing the call.
func BenchmarkPerExecution(b *testing.B) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	st, err := pgstate.New(ctx, pool, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	lim, reg := st.Limiter("executions", 1e9, 1<<30), st.Cancellations()
	b.Run("take", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if d, err := lim.Take(ctx, "sub:"+strconv.Itoa(i%64), 1); d != 0 || err != nil {
				b.Fatal(d, err)
			}
		}
	})
	b.Run("register+release", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			release, err := reg.Register(ctx, "sub:alice", "n:"+strconv.Itoa(i), func() {})
			if err != nil {
				b.Fatal(err)
			}
			release()
		}
	})
}
