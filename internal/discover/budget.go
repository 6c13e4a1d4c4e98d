package discover

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Discovery calls (codemode.search, codemode.describe) are free in the
// sense that they do not spend the execution's call limit, so that a
// script can look declarations up and still make every call it may. Free
// must not mean unbounded: a loop of describes once pushed 92 MB of
// declarations through the host in one execution. So their answers are
// cached per catalogue version (the same question costs the host nothing
// the second time, in any execution), and each execution gets a Budget.
const (
	// MaxCalls is the most discovery calls one execution may make. A
	// script in index mode needs a few: a search or two and one describe
	// of the functions it will call.
	MaxCalls = 50
	// MaxWork bounds the host time one execution's uncached discovery
	// answers may take (a cached answer costs nothing).
	MaxWork = 2 * time.Second
)

// Budget is one execution's spending of discovery calls. The zero value
// is a full budget; it is safe for concurrent use.
type Budget struct {
	mu    sync.Mutex
	calls int
	work  time.Duration
}

// Reset refills the budget: a run resumed after an approval starts where
// the asking run did.
func (b *Budget) Reset() {
	b.mu.Lock()
	b.calls, b.work = 0, 0
	b.mu.Unlock()
}

// Answer answers the discovery question k from c, for the functions'
// version, or by compute, within the budget: past MaxCalls calls every
// call fails, and past MaxWork of computing only cached answers are
// given. Each error says what the script should do instead.
func (b *Budget) Answer(c *Cache, version uint64, k Key, compute func() (json.RawMessage, error)) (json.RawMessage, error) {
	b.mu.Lock()
	b.calls++
	calls, work := b.calls, b.work
	b.mu.Unlock()
	if calls > MaxCalls {
		return nil, fmt.Errorf("codemode.%s: not run: this execution has already made %d discovery calls (codemode.search and codemode.describe), the most one execution may make. "+
			"Search once with a higher limit, describe every function you need in one call (codemode.describe([\"a\", \"b\"])), and keep the answers in variables instead of asking again", k.Fn, MaxCalls)
	}
	if a, ok := c.Get(version, k); ok {
		return a.Out, a.Err
	}
	// Only work the host still has to do counts against the time budget.
	if work > MaxWork {
		return nil, fmt.Errorf("codemode.%s: not run: this execution's discovery calls have used their %v of host time. "+
			"Ask for fewer functions, or return what you found and run the calls in a new execution", k.Fn, MaxWork)
	}
	start := time.Now()
	out, err := compute()
	b.mu.Lock()
	b.work += time.Since(start)
	b.mu.Unlock()
	c.Put(version, k, Answer{Out: out, Err: err})
	return out, err
}
