package codemode

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
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
	// discoveryCacheEntries and discoveryCacheBytes bound the cache; past
	// either the cache is emptied and refills with what is asked again.
	discoveryCacheEntries = 1024
	discoveryCacheBytes   = 8 << 20
	// maxCachedArgs keeps keys small: valid arguments are far shorter (a
	// query of at most 1,000 bytes, at most 50 names).
	maxCachedArgs = 4 << 10
)

// discoveryCache holds discovery answers of one view of the catalogues
// (its version is view.gen; a refresh that follows a catalogue's change
// makes a new view).
type discoveryCache struct {
	mu      sync.Mutex
	version uint64
	answers map[discoveryKey]discoveryAnswer
	bytes   int // of the answers and keys held
}

type discoveryKey struct {
	tool, fn, args string
}

// discoveryAnswer is an answer or its error: both are deterministic for
// one catalogue version.
type discoveryAnswer struct {
	out json.RawMessage
	err error
}

func (c *discoveryCache) get(version uint64, k discoveryKey) (discoveryAnswer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version {
		return discoveryAnswer{}, false
	}
	a, ok := c.answers[k]
	return a, ok
}

func (c *discoveryCache) put(version uint64, k discoveryKey, a discoveryAnswer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	size := len(a.out) + len(k.tool) + len(k.fn) + len(k.args)
	if a.err != nil {
		size += len(a.err.Error())
	}
	if size > discoveryCacheBytes {
		return
	}
	if c.version != version || c.answers == nil || len(c.answers) >= discoveryCacheEntries || c.bytes+size > discoveryCacheBytes {
		c.version, c.answers, c.bytes = version, map[discoveryKey]discoveryAnswer{}, 0
	}
	if _, ok := c.answers[k]; !ok {
		c.answers[k] = a
		c.bytes += size
	}
}

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
	key := discoveryKey{tool: h.spec.name, fn: fn, args: string(args)}
	cacheable := len(args) <= maxCachedArgs
	if cacheable {
		if a, ok := s.discCache.get(version, key); ok {
			return a.out, a.err
		}
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
	if cacheable {
		s.discCache.put(version, key, discoveryAnswer{out, err})
	}
	return out, err
}
