package codemode

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/brakinglab/codemode-go/internal/discover"
)

// Discovery calls (codemode.search, codemode.describe) are free in the
// sense that they do not spend Limits.MaxCalls, so that a script can look
// declarations up and still make every call it may. Free must not mean
// unbounded: a loop of describes once pushed 92 MB of declarations
// through the host in one execution. So their answers are cached per
// catalogue version (the same question costs the host nothing the second
// time, in any execution), and each execution gets a budget of them.
const (
	// MaxDiscoveryCalls is the most discovery calls one execution may
	// make. A script in index mode needs a few: a search or two and one
	// describe of the functions it will call.
	MaxDiscoveryCalls = 50
	// discoveryWork bounds the host time one execution's uncached
	// discovery answers may take (a cached answer costs nothing).
	discoveryWork = 2 * time.Second
)

// discoveryUse is one execution's spending of its discovery budget.
type discoveryUse struct {
	mu    sync.Mutex
	calls int
	work  time.Duration
}

// discover answers a discovery call of h's execution from the cache or by
// computing it, within the execution's budget.
func (h *execHost) discover(fn string, args json.RawMessage) (json.RawMessage, error) {
	h.disc.mu.Lock()
	h.disc.calls++
	calls, work := h.disc.calls, h.disc.work
	h.disc.mu.Unlock()
	if calls > MaxDiscoveryCalls {
		return nil, fmt.Errorf("codemode.%s: not run: this execution has already made %d discovery calls (codemode.search and codemode.describe), the most one execution may make. "+
			"Search once with a higher limit, describe every function you need in one call (codemode.describe([\"a\", \"b\"])), and keep the answers in variables instead of asking again", fn, MaxDiscoveryCalls)
	}
	s := h.s
	version := h.spec.v.gen // a refresh makes a new view: older answers are dropped
	key := discover.Key{Tool: h.spec.name, Fn: fn, Args: string(args)}
	if a, ok := s.discCache.Get(version, key); ok {
		return a.Out, a.Err
	}
	// Only work the host still has to do counts against the time budget.
	if work > discoveryWork {
		return nil, fmt.Errorf("codemode.%s: not run: this execution's discovery calls have used their %v of host time. "+
			"Ask for fewer functions, or return what you found and run the calls in a new execution", fn, discoveryWork)
	}
	start := time.Now()
	out, err := s.discoveryCall(h.spec, fn, args)
	h.disc.mu.Lock()
	h.disc.work += time.Since(start)
	h.disc.mu.Unlock()
	s.discCache.Put(version, key, discover.Answer{Out: out, Err: err})
	return out, err
}
