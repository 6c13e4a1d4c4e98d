package discover

import (
	"encoding/json"
	"sync"
)

// Bounds of the Cache: past either of the first two it is emptied and
// refills with what is asked again.
const (
	cacheEntries = 1024
	cacheBytes   = 8 << 20
	// maxCachedArgs keeps keys small: valid arguments are far shorter (a
	// query of at most 1,000 bytes, at most 50 names).
	maxCachedArgs = 4 << 10
)

// Cache holds discovery answers, errors included, of one version of the
// functions (a caller's number that changes whenever they do): answers
// are deterministic for a version, so the same question costs nothing the
// second time. It holds at most 1,024 answers and 8 MiB; arguments over
// 4 KiB are never cached. The zero value is empty and ready.
type Cache struct {
	mu      sync.Mutex
	version uint64
	answers map[Key]Answer
	bytes   int // of the answers and keys held
}

// Key is a question: the tool asked (tools bind different functions),
// the discovery function and its arguments.
type Key struct {
	Tool, Fn, Args string
}

// Answer is an answer or its error.
type Answer struct {
	Out json.RawMessage
	Err error
}

// Get returns the answer to k for version, if held.
func (c *Cache) Get(version uint64, k Key) (Answer, bool) {
	if len(k.Args) > maxCachedArgs {
		return Answer{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version {
		return Answer{}, false
	}
	a, ok := c.answers[k]
	return a, ok
}

// Put keeps a, the answer to k for version, dropping what an older
// version left.
func (c *Cache) Put(version uint64, k Key, a Answer) {
	if len(k.Args) > maxCachedArgs {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	size := len(a.Out) + len(k.Tool) + len(k.Fn) + len(k.Args)
	if a.Err != nil {
		size += len(a.Err.Error())
	}
	if size > cacheBytes {
		return
	}
	if c.version != version || c.answers == nil || len(c.answers) >= cacheEntries || c.bytes+size > cacheBytes {
		c.version, c.answers, c.bytes = version, map[Key]Answer{}, 0
	}
	if _, ok := c.answers[k]; !ok {
		c.answers[k] = a
		c.bytes += size
	}
}

// Len returns the number of answers held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.answers)
}
