package sandbox

import (
	"container/list"
	"sync"
)

// lru is a bounded, concurrency-safe cache of compiled programs keyed by the
// SHA-256 of their source.
type lru struct {
	mu    sync.Mutex
	max   int
	order *list.List // front = most recently used; values are *compiled
	items map[[32]byte]*list.Element
}

func newLRU(max int) *lru {
	return &lru{max: max, order: list.New(), items: make(map[[32]byte]*list.Element)}
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

func (c *lru) put(k [32]byte, v *compiled) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		e.Value = v
		c.order.MoveToFront(e)
		return
	}
	c.items[k] = c.order.PushFront(v)
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*compiled).hash)
	}
}
