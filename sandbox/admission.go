package sandbox

import (
	"context"
	"fmt"
	"sync"
)

// admission lets executions onto the pool's workers, serving waiting
// callers fairly: when a worker frees up it goes to the waiter whose
// partition (RunOptions.Partition, the caller) has the fewest executions
// running, the longest waiting among equals. A first-come queue would let
// one caller who starts many long scripts at once hold every worker while
// everyone else waits for all of them.
//
// Fair order alone still makes a newcomer wait for one of those scripts to
// end, up to a whole timeout. So beyond the capacity (the pool size) the
// queue keeps a reserve of one slot that only a caller with nothing
// running may take: while one caller (or several) hold every worker,
// another caller's execution starts at once on an extra worker, and
// capacity+reserve bounds the executions running at any time. A reserve
// within the capacity would do the same but take a worker from a caller
// who is alone; an extra worker costs one more process only while the
// pool is saturated.
//
// It is work-conserving: with no one else waiting, one caller may use
// every worker of the capacity.
type admission struct {
	capacity int // workers any caller may hold
	reserve  int // further slots, for callers with nothing running
	// maxWaiting bounds one caller's waiting executions: each holds a
	// request and its connection, and callers can start new ones faster
	// than long scripts finish.
	maxWaiting int

	mu      sync.Mutex
	running map[string]int
	total   int
	waiting []*admissionWaiter
}

type admissionWaiter struct {
	key     string
	ready   chan struct{}
	granted bool
}

// admissionReserve is the number of extra slots kept for callers with
// nothing running.
const admissionReserve = 1

func newAdmission(workers int) *admission {
	return &admission{capacity: workers, reserve: admissionReserve, maxWaiting: max(2*workers, 8), running: map[string]int{}}
}

// may reports whether key may take a slot now. Call with mu held.
func (q *admission) may(key string) bool {
	return q.total < q.capacity || (q.total < q.capacity+q.reserve && q.running[key] == 0)
}

// busyError refuses an execution whose caller already has maxWaiting
// executions waiting.
func busyError(waiting int) *Error {
	return &Error{Kind: KindBusy, Message: fmt.Sprintf(
		"not run: every sandbox worker is busy and %d of your executions are already waiting for one. Wait for them to finish, then retry; combine work into fewer executions.",
		waiting)}
}

// acquire waits for a worker for key (or for ctx to end, or quit to close)
// and returns the function that gives it back.
func (q *admission) acquire(ctx context.Context, key string, quit <-chan struct{}) (release func(), err error) {
	release = func() { q.release(key) }
	q.mu.Lock()
	if len(q.waiting) == 0 && q.may(key) {
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
		return nil, busyError(mine)
	}
	w := &admissionWaiter{key: key, ready: make(chan struct{})}
	q.waiting = append(q.waiting, w)
	// The waiters ahead may all be barred from the reserve that this
	// caller, with nothing running, may take.
	q.dispatch()
	q.mu.Unlock()

	var stopped error
	select {
	case <-w.ready:
		return release, nil
	case <-ctx.Done():
		stopped = cancelledError(ctx)
	case <-quit:
		stopped = ErrClosed
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if w.granted { // granted as the wait ended: hand the worker on
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
	return nil, stopped
}

func (q *admission) release(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.running[key]--
	q.total--
	q.dispatch()
}

// grant counts one running execution of key. Call with mu held.
func (q *admission) grant(key string) {
	q.running[key]++
	q.total++
}

// dispatch hands free slots to waiters, fewest running first. Call with
// mu held.
func (q *admission) dispatch() {
	for k, n := range q.running {
		if n <= 0 {
			delete(q.running, k)
		}
	}
	for len(q.waiting) > 0 {
		best := 0
		for i, w := range q.waiting {
			if q.running[w.key] < q.running[q.waiting[best].key] {
				best = i
			}
		}
		w := q.waiting[best]
		if !q.may(w.key) {
			// The waiter with the fewest running may not: nobody may.
			return
		}
		q.waiting = append(q.waiting[:best], q.waiting[best+1:]...)
		q.grant(w.key)
		w.granted = true
		close(w.ready)
	}
}

// counts reports the executions holding and waiting for a worker.
func (q *admission) counts() (running, waiting int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.total, len(q.waiting)
}
