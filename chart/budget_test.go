//go:build linux

package chart_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/chart"
	"github.com/brakinglab/codemode-go/internal/threadcpu"
)

// burner is a renderer that spends at least d of CPU on its thread.
type burner struct{ d time.Duration }

func (b burner) RenderPNG(*chart.Spec) ([]byte, error) {
	// Thread CPU, as the budget measures it, not wall time: spin until the
	// thread's rusage clock moved by d (Budget.Render locks the thread).
	start := threadcpu.Now()
	x := 0
	for threadcpu.Now()-start < b.d {
		for i := range 10000 {
			x += i
		}
	}
	runtime.KeepAlive(x)
	return []byte("png"), nil
}

// A budget of 100 ms for renderings of at most 40 ms each draws two (80
// ms or more charged; less than 40 ms left) and refuses the third with a
// message for the model, without calling the renderer.
func TestBudgetStopsRendering(t *testing.T) {
	b := chart.NewBudget(100*time.Millisecond, 40*time.Millisecond)
	var spec chart.Spec
	for i := range 2 {
		if png, err := b.Render(burner{35 * time.Millisecond}, &spec); err != nil || string(png) != "png" {
			t.Fatalf("rendering %d: %q %v", i+1, png, err)
		}
	}
	t.Logf("charged after two renderings: %s", b.Spent())
	_, err := b.Render(burner{time.Second}, &spec)
	if !errors.Is(err, chart.ErrBudgetSpent) {
		t.Fatalf("third rendering: %v, want ErrBudgetSpent (spent %s)", err, b.Spent())
	}
	t.Log(err)
}

// Concurrent renderings of one budget reserve the worst case before they
// start, so they cannot all start on the same remainder.
func TestBudgetConcurrent(t *testing.T) {
	b := chart.NewBudget(100*time.Millisecond, 50*time.Millisecond)
	var wg sync.WaitGroup
	var mu sync.Mutex
	drawn := 0
	for range 8 {
		wg.Go(func() {
			if _, err := b.Render(burner{time.Millisecond}, &chart.Spec{}); err == nil {
				mu.Lock()
				drawn++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if drawn < 2 {
		t.Fatalf("%d renderings drawn, want at least 2", drawn)
	}
}

// A freed slot goes to the principal with the fewest renderings running,
// then to the one served longest ago: while alice queues many charts, bob's
// one waits behind at most one of hers.
func TestSlotsFair(t *testing.T) {
	s := chart.NewSlots(1)
	ctx := context.Background()
	release, err := s.Acquire(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	queued := make(chan struct{})
	enqueue := func(who string) {
		wg.Go(func() {
			r, err := s.Acquire(ctx, who)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, who)
			mu.Unlock()
			r()
		})
	}
	for range 3 {
		enqueue("alice")
	}
	enqueue("bob")
	// Wait until all four are queued: the slot is held, so each blocks.
	go func() {
		for s.Waiting() < 4 {
			runtime.Gosched()
		}
		close(queued)
	}()
	<-queued
	release()
	wg.Wait()
	if fmt.Sprint(order) != "[bob alice alice alice]" {
		t.Fatalf("order %v, want bob first: alice was just served", order)
	}
}

// A waiter whose context ends leaves the queue; a release still reaches
// the next waiter.
func TestSlotsCancel(t *testing.T) {
	s := chart.NewSlots(1)
	release, _ := s.Acquire(context.Background(), "a")
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := s.Acquire(ctx, "b")
		errc <- err
	}()
	for s.Waiting() < 1 {
		runtime.Gosched()
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter: %v", err)
	}
	release()
	r, err := s.Acquire(context.Background(), "c")
	if err != nil {
		t.Fatal(err)
	}
	r()
	r() // twice is harmless
	if s.Waiting() != 0 {
		t.Fatal("waiters left")
	}
}
