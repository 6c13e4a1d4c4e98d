package pgstate_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/brakinglab/codemode-go/codemode/pgstate"
	"github.com/brakinglab/codemode-go/codemode/state"
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

// BenchmarkSavedChange measures a save on one replica until the other's
// watcher hears of it (save: the Save alone, the NOTIFY in its
// transaction included; save+heard: until replica b reports it).
func BenchmarkSavedChange(b *testing.B) {
	ctx := context.Background()
	db := pgtest.NewDatabase(b)
	a, r := openState(b, db).SavedFunctions(), openState(b, db).SavedFunctions()
	heard := make(chan struct{}, 1<<16)
	defer r.WatchSaved(func(string, bool) { heard <- struct{}{} })()
	fn := state.SavedFunction{Owner: "ann", Name: "f", Description: "d", Code: "return 1", Input: []byte(`{"type":"object"}`), Tier: "READ-ONLY", Created: time.Now()}
	b.Run("save", func(b *testing.B) {
		for b.Loop() {
			if _, err := a.Save(ctx, fn, 100); err != nil {
				b.Fatal(err)
			}
		}
	})
	for len(heard) > 0 {
		<-heard
	}
	b.Run("save+heard", func(b *testing.B) {
		for b.Loop() {
			if _, err := a.Save(ctx, fn, 100); err != nil {
				b.Fatal(err)
			}
			<-heard
		}
	})
}
