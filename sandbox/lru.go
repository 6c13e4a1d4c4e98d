package sandbox

import (
	"container/list"
	"sync"
)

// Cache bounds. A compiled program takes roughly 12 bytes of heap per byte
// of transpiled JavaScript (measured on the coaching script: 2 KB of JS,
// 25 KB compiled), so the cache is bounded by an estimate of its heap.
const (
	cacheMaxEntries = 256
	cacheMaxBytes   = 16 << 20
	cacheBytesPerJS = 12
)

// lru is a bounded, concurrency-safe cache of compiled programs keyed by
// sourceKey.
type lru struct {
	mu       sync.Mutex
	maxN     int
	maxBytes int
	bytes    int
	order    *list.List // front = most recently used; values are *compiled
	items    map[[32]byte]*list.Element
}

func newLRU(maxN, maxBytes int) *lru {
	return &lru{maxN: maxN, maxBytes: maxBytes, order: list.New(), items: make(map[[32]byte]*list.Element)}
}

// cost estimates an entry's heap: its compiled form, its source and its
// source map, or the fast path's position anchors.
func cost(c *compiled) int {
	return cacheBytesPerJS*len(c.js) + len(c.ts) + len(c.rawMap) + 8*len(c.anchors)
}

func (c *lru) get(k [32]byte) (*compiled, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*compiled), true
}

// put adds v under k, evicting least recently used entries until the
// cache is within both bounds. An entry larger than the whole byte budget
// is not kept.
func (c *lru) put(k [32]byte, v *compiled) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cost(v) > c.maxBytes {
		if e, ok := c.items[k]; ok {
			c.order.Remove(e)
			c.bytes -= cost(e.Value.(*compiled))
			delete(c.items, k)
		}
		return
	}
	if e, ok := c.items[k]; ok {
		c.bytes += cost(v) - cost(e.Value.(*compiled))
		e.Value = v
		c.order.MoveToFront(e)
	} else {
		c.items[k] = c.order.PushFront(v)
		c.bytes += cost(v)
	}
	for c.order.Len() > c.maxN || c.bytes > c.maxBytes {
		last := c.order.Back()
		c.order.Remove(last)
		old := last.Value.(*compiled)
		c.bytes -= cost(old)
		delete(c.items, old.key)
	}
}

// len returns the number of entries and their estimated bytes.
func (c *lru) len() (int, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.bytes
}
