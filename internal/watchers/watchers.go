// Package watchers keeps the functions that asked to be told of changes:
// added with a way to remove them, and read as a copy so that they are
// called without the set's lock held.
package watchers

import (
	"maps"
	"slices"
	"sync"
)

// Set is a set of watching functions of type F. The zero Set is empty and
// ready; it is safe for concurrent use.
type Set[F any] struct {
	mu   sync.Mutex
	next int
	fns  map[int]F
}

// Add adds fn until stop is called.
func (s *Set[F]) Add(fn F) (stop func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fns == nil {
		s.fns = map[int]F{}
	}
	id := s.next
	s.next++
	s.fns[id] = fn
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.fns, id)
	}
}

// All returns the functions in the set now, to be called after the set's
// lock is released, so that a function may add or stop watchers.
func (s *Set[F]) All() []F {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Collect(maps.Values(s.fns))
}
