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
// every worker of the capacity. In process it goes further: a caller alone
// (no other caller running or waiting) may run up to burst executions, as
// executions waiting for host calls leave their core idle and goroutines
// cost no process. Slots beyond the capacity are not taken again while
// anyone else runs or waits, and the reserve is counted apart from them,
// so a newcomer still starts at once.
type admission struct {
	capacity int // workers any caller may hold
	burst    int // executions a caller alone may run (≥ capacity)
	reserve  int // further slots, for callers with nothing running
	reserved int // executions running on a reserve slot
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
	reserve bool // granted a reserve slot
}

// admissionReserve is the number of extra slots kept for callers with
// nothing running.
const admissionReserve = 1

func newAdmission(workers int) *admission { return newAdmissionBurst(workers, workers) }

// newAdmissionBurst is newAdmission where a caller alone may run up to
// burst executions.
func newAdmissionBurst(workers, burst int) *admission {
	return &admission{capacity: workers, burst: max(burst, workers), reserve: admissionReserve, maxWaiting: max(2*workers, 8), running: map[string]int{}}
}

// slot reports whether key may take a slot now, and whether it is a
// reserve slot. Call with mu held.
func (q *admission) slot(key string) (ok, reserve bool) {
	switch {
	case q.total-q.reserved < q.capacity:
		return true, false
	case q.total-q.reserved < q.burst && q.alone(key):
		return true, false
	case q.running[key] == 0 && q.reserved < q.reserve:
		return true, true
	}
	return false, false
}

// alone reports whether no caller but key runs or waits. Call with mu
// held.
func (q *admission) alone(key string) bool {
	if len(q.running) > 1 || (len(q.running) == 1 && q.running[key] == 0) {
		return false
	}
	for _, w := range q.waiting {
		if w.key != key {
			return false
		}
	}
	return true
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
	q.mu.Lock()
	if ok, reserve := q.slot(key); ok && len(q.waiting) == 0 {
		q.grant(key, reserve)
		q.mu.Unlock()
		return func() { q.release(key, reserve) }, nil
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
		return func() { q.release(key, w.reserve) }, nil
	case <-ctx.Done():
		stopped = cancelledError(ctx)
	case <-quit:
		stopped = ErrClosed
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if w.granted { // granted as the wait ended: hand the worker on
		q.ungrant(key, w.reserve)
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

func (q *admission) release(key string, reserve bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ungrant(key, reserve)
	q.dispatch()
}

// grant counts one running execution of key. Call with mu held.
func (q *admission) grant(key string, reserve bool) {
	q.running[key]++
	q.total++
	if reserve {
		q.reserved++
	}
}

// ungrant undoes grant. Call with mu held.
func (q *admission) ungrant(key string, reserve bool) {
	if q.running[key]--; q.running[key] <= 0 {
		delete(q.running, key)
	}
	q.total--
	if reserve {
		q.reserved--
	}
}

// dispatch hands free slots to waiters, fewest running first. Call with
// mu held.
func (q *admission) dispatch() {
	for len(q.waiting) > 0 {
		best := 0
		for i, w := range q.waiting {
			if q.running[w.key] < q.running[q.waiting[best].key] {
				best = i
			}
		}
		w := q.waiting[best]
		ok, reserve := q.slot(w.key)
		if !ok {
			// The waiter with the fewest running may not: nobody may.
			return
		}
		q.waiting = append(q.waiting[:best], q.waiting[best+1:]...)
		q.grant(w.key, reserve)
		w.granted, w.reserve = true, reserve
		close(w.ready)
	}
}

// counts reports the executions holding and waiting for a worker.
func (q *admission) counts() (running, waiting int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.total, len(q.waiting)
}
