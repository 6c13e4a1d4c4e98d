package approval

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/brakinglab/codemode-go/codemode/state"
)

// The in-process store of the approval page's approvals, and the waiters
// an answer stored by this replica wakes.

// pageWaiters wakes a call waiting on an approval as soon as this
// replica's page stores the answer. An answer stored by another replica
// reaches the call at its next read of the store (pagePoll).
type pageWaiters struct {
	mu sync.Mutex
	m  map[string]*pageWaiter
}

type pageWaiter struct {
	ch chan struct{} // closed by wake
	n  int           // calls waiting
}

// wait returns a channel closed when id is answered here, and the release
// to call once the caller stops waiting.
func (w *pageWaiters) wait(id string) (<-chan struct{}, func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[string]*pageWaiter{}
	}
	e := w.m[id]
	if e == nil {
		e = &pageWaiter{ch: make(chan struct{})}
		w.m[id] = e
	}
	e.n++
	return e.ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if e.n--; e.n == 0 && w.m[id] == e {
			delete(w.m, id)
		}
	}
}

// wake wakes the calls waiting on id.
func (w *pageWaiters) wake(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e := w.m[id]; e != nil {
		close(e.ch)
		delete(w.m, id)
	}
}

// pendingCache is the in-process state.PendingApprovals: right for one replica.
type pendingCache struct {
	mu         sync.Mutex
	all        map[string]*state.PendingApproval
	latest     map[string]*state.PendingApproval // by Match: the newest
	swept      time.Time
	perSubject int // caps on approvals awaiting an answer
	total      int
}

// newPendingCache returns a store that keeps at most perSubject
// approvals awaiting an answer per principal and total for all (zero:
// the state defaults).
func newPendingCache(perSubject, total int) *pendingCache {
	if perSubject == 0 {
		perSubject = state.DefaultMaxPendingPerSubject
	}
	if total == 0 {
		total = state.DefaultMaxPending
	}
	return &pendingCache{all: map[string]*state.PendingApproval{}, latest: map[string]*state.PendingApproval{}, perSubject: perSubject, total: total}
}

// Put implements state.PendingApprovals; about once a minute it sweeps
// approvals past their retention.
func (c *pendingCache) Put(_ context.Context, p state.PendingApproval) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Count the approvals awaiting an answer: Put is rare (a call that
	// needs approval) and the store small, so a scan is cheap.
	mine, all := 0, 0
	for _, q := range c.all {
		if q.Answer == "" && p.Created.Before(q.Expires) {
			all++
			if q.Subject == p.Subject {
				mine++
			}
		}
	}
	if mine >= c.perSubject {
		return &state.PendingLimitError{Subject: p.Subject, Limit: c.perSubject}
	}
	if all >= c.total {
		return &state.PendingLimitError{Limit: c.total}
	}
	if p.Created.Sub(c.swept) > time.Minute {
		c.swept = p.Created
		for id, q := range c.all {
			if p.Created.After(q.Expires.Add(state.PendingApprovalRetention)) {
				delete(c.all, id)
				if c.latest[q.Match] == q {
					delete(c.latest, q.Match)
				}
			}
		}
	}
	if _, ok := c.all[p.ID]; ok {
		return errors.New("codemode: approval id in use")
	}
	c.all[p.ID] = &p
	if q := c.latest[p.Match]; q == nil || !p.Created.Before(q.Created) {
		c.latest[p.Match] = &p
	}
	return nil
}

// Get implements state.PendingApprovals.
func (c *pendingCache) Get(_ context.Context, id string) (*state.PendingApproval, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.all[id]; ok {
		cp := *p
		return &cp, nil
	}
	return nil, nil
}

// Latest implements state.PendingApprovals.
func (c *pendingCache) Latest(_ context.Context, match string) (*state.PendingApproval, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.latest[match]
	if p == nil {
		return nil, nil
	}
	cp := *p
	return &cp, nil
}

// Answer implements state.PendingApprovals.
func (c *pendingCache) Answer(_ context.Context, id, answer string, now time.Time) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.all[id]
	if !ok || p.Answer != "" || !now.Before(p.Expires) {
		return false, nil
	}
	p.Answer = answer
	return true, nil
}
