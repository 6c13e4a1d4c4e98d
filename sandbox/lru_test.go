package sandbox

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestLRUBounds checks eviction by count and by estimated bytes, least
// recently used first.
func TestLRUBounds(t *testing.T) {
	entry := func(b byte, jsLen int) *compiled {
		return &compiled{key: [32]byte{b}, js: strings.Repeat("x", jsLen)}
	}
	c := newLRU(3, 1000*cacheBytesPerJS)
	for b := byte(1); b <= 3; b++ {
		c.put([32]byte{b}, entry(b, 10))
	}
	c.get([32]byte{1}) // 2 is now the oldest
	c.put([32]byte{4}, entry(4, 10))
	if _, ok := c.get([32]byte{2}); ok {
		t.Error("entry 2 not evicted by count")
	}
	for _, b := range []byte{1, 3, 4} {
		if _, ok := c.get([32]byte{b}); !ok {
			t.Errorf("entry %d evicted", b)
		}
	}
	c.put([32]byte{5}, entry(5, 995)) // over the byte budget: all others go
	if n, bytes := c.len(); n != 1 || bytes != 995*cacheBytesPerJS {
		t.Errorf("after a large entry: %d entries, %d bytes", n, bytes)
	}
	c.put([32]byte{6}, entry(6, 5000)) // larger than the budget alone: not kept
	if n, bytes := c.len(); n != 1 || bytes > 1000*cacheBytesPerJS {
		t.Errorf("after an oversized entry: %d entries, %d bytes", n, bytes)
	}
	if _, ok := c.get([32]byte{6}); ok {
		t.Error("an entry over the whole byte budget was kept")
	}
	if _, ok := c.get([32]byte{5}); !ok {
		t.Error("an oversized entry evicted the others")
	}
}

// TestCachePartitioned checks that a program compiled in one partition is
// not a cache hit in another: the speed of a hit would tell one principal
// what another ran.
func TestCachePartitioned(t *testing.T) {
	sb := inProcessSandbox(t, Limits{})
	// Unique per run: the cache is the process's, and -count=2 would find
	// the first run's entries.
	src := fmt.Sprintf("return 'partitioned cache %s %d'", t.Name(), time.Now().UnixNano())
	if _, err := sb.RunWith(context.Background(), src, nil, &RunOptions{Partition: "alice"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := cache.get(sourceKey("alice", src)); !ok {
		t.Fatal("not cached in alice's partition")
	}
	if _, ok := cache.get(sourceKey("bob", src)); ok {
		t.Fatal("alice's compilation is visible in bob's partition")
	}
	if sourceKey("a", "bc") == sourceKey("ab", "c") {
		t.Fatal("partition and source are not separated in the key")
	}
	if _, err := sb.RunWith(context.Background(), src, nil, &RunOptions{Partition: "bob"}); err != nil {
		t.Fatal(err)
	}
	a, _ := cache.get(sourceKey("alice", src))
	b, ok := cache.get(sourceKey("bob", src))
	if !ok || a == b {
		t.Fatal("bob did not get a compilation of his own")
	}
}
