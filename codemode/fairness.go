package codemode

import (
	"context"
	"errors"
	"runtime"
	"sync"
)

// fairQueue admits executions to the sandbox's workers, serving waiting
// principals fairly: when a worker frees up it goes to the waiter whose
// principal has the fewest executions running (the longest waiting among
// equals). Without it the pool's first-come queue lets one user who starts
// many long scripts at once (dozens of ten-second loops fit in the
// default rate-limit burst) hold every worker while everyone else waits for all of
// them. With it another user waits at most for one execution to end.
//
// It is work-conserving: with no one else waiting, a principal may use
// every worker.
type fairQueue struct {
	capacity int // workers; < 1: no queue (in-process sandbox)
	// maxWaiting bounds one principal's waiting executions: each holds a
	// request and its connection, and the rate limit admits new ones
	// faster than long scripts finish.
	maxWaiting int

	mu      sync.Mutex
	running map[string]int
	total   int
	waiting []*fairWaiter
}

type fairWaiter struct {
	key     string
	ready   chan struct{}
	granted bool
}

// newFairQueue sizes the queue to the worker pool: workers, or GOMAXPROCS
// (the sandbox's default pool size) when zero.
func newFairQueue(workers int) *fairQueue {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &fairQueue{capacity: workers, maxWaiting: max(2*workers, 8), running: map[string]int{}}
}

// errQueueFull refuses an execution whose principal already has
// maxWaiting executions waiting.
var errQueueFull = errors.New("queue full")

// acquire waits for a worker for principal key (or for ctx to end) and
// returns the function that gives it back.
func (q *fairQueue) acquire(ctx context.Context, key string) (release func(), err error) {
	if q == nil || q.capacity < 1 {
		return func() {}, nil
	}
	release = func() { q.release(key) }
	q.mu.Lock()
	if q.total < q.capacity && len(q.waiting) == 0 {
		q.grant(key)
		q.mu.Unlock()
		return release, nil
	}
	mine := 0
	for _, x := range q.waiting {
		if x.key == key {
			mine++
		}
	}
	if mine >= q.maxWaiting {
		q.mu.Unlock()
		return nil, errQueueFull
	}
	w := &fairWaiter{key: key, ready: make(chan struct{})}
	q.waiting = append(q.waiting, w)
	q.mu.Unlock()

	select {
	case <-w.ready:
		return release, nil
	case <-ctx.Done():
		q.mu.Lock()
		defer q.mu.Unlock()
		if w.granted { // granted as ctx ended: hand the worker on
			q.running[key]--
			q.total--
			q.dispatch()
		} else {
			for i, x := range q.waiting {
				if x == w {
					q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
					break
				}
			}
		}
		return nil, ctx.Err()
	}
}

func (q *fairQueue) release(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.running[key]--
	q.total--
	q.dispatch()
}

// grant counts one running execution of key. Call with mu held.
func (q *fairQueue) grant(key string) {
	q.running[key]++
	q.total++
}

// dispatch hands free workers to waiters, fewest running first. Call with
// mu held.
func (q *fairQueue) dispatch() {
	for k, n := range q.running {
		if n <= 0 {
			delete(q.running, k)
		}
	}
	for q.total < q.capacity && len(q.waiting) > 0 {
		best := 0
		for i, w := range q.waiting {
			if q.running[w.key] < q.running[q.waiting[best].key] {
				best = i
			}
		}
		w := q.waiting[best]
		q.waiting = append(q.waiting[:best], q.waiting[best+1:]...)
		q.grant(w.key)
		w.granted = true
		close(w.ready)
	}
}

// waiters reports how many executions wait for a worker, for tests.
func (q *fairQueue) waiters() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.waiting)
}
