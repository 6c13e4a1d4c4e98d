package chart

import (
	"context"
	"runtime"
	"sync"
)

// Slots bounds how many charts are drawn at once in the process and shares
// the slots fairly between principals: a freed slot goes to the waiting
// principal with the fewest renderings running, and among those to the one
// served longest ago, so one user's burst of charts cannot keep another's
// waiting behind it. Safe for concurrent use.
type Slots struct {
	mu      sync.Mutex
	free    int
	running map[string]int
	served  map[string]uint64 // when each principal was last granted a slot
	clock   uint64
	waiting []*slotWaiter // in arrival order
}

type slotWaiter struct {
	principal string
	ready     chan struct{} // closed when granted
}

// NewSlots returns n slots; n < 1 means GOMAXPROCS.
func NewSlots(n int) *Slots {
	if n < 1 {
		n = runtime.GOMAXPROCS(0)
	}
	return &Slots{free: n, running: map[string]int{}, served: map[string]uint64{}}
}

// Acquire waits for a slot for principal, or for ctx to end. Call release
// once the rendering is done.
func (s *Slots) Acquire(ctx context.Context, principal string) (release func(), err error) {
	s.mu.Lock()
	if s.free > 0 && len(s.waiting) == 0 {
		s.grant(principal)
		s.mu.Unlock()
		return s.releaser(principal), nil
	}
	w := &slotWaiter{principal: principal, ready: make(chan struct{})}
	s.waiting = append(s.waiting, w)
	s.mu.Unlock()
	select {
	case <-w.ready:
		return s.releaser(principal), nil
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		select {
		case <-w.ready: // granted meanwhile: hand it on
			s.done(principal)
		default:
			for i, x := range s.waiting {
				if x == w {
					s.waiting = append(s.waiting[:i], s.waiting[i+1:]...)
					break
				}
			}
		}
		return nil, ctx.Err()
	}
}

// grant gives a free slot to principal; s.mu is held.
func (s *Slots) grant(principal string) {
	s.free--
	s.running[principal]++
	s.clock++
	s.served[principal] = s.clock
}

func (s *Slots) releaser(principal string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.done(principal)
		})
	}
}

// done frees principal's slot and hands free slots to the fairest
// waiters; s.mu is held.
func (s *Slots) done(principal string) {
	s.free++
	if s.running[principal]--; s.running[principal] == 0 {
		delete(s.running, principal)
	}
	for s.free > 0 && len(s.waiting) > 0 {
		best := 0
		for i, w := range s.waiting[1:] {
			b := s.waiting[best]
			if r, rb := s.running[w.principal], s.running[b.principal]; r < rb || r == rb && s.served[w.principal] < s.served[b.principal] {
				best = i + 1
			}
		}
		w := s.waiting[best]
		s.waiting = append(s.waiting[:best], s.waiting[best+1:]...)
		s.grant(w.principal)
		close(w.ready)
	}
	if len(s.running) == 0 && len(s.waiting) == 0 {
		clear(s.served) // nothing to remember: keep the map small
	}
}

// Waiting returns how many Acquire calls are waiting for a slot.
func (s *Slots) Waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.waiting)
}
