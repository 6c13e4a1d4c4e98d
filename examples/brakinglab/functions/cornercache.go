package functions

import (
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/brakinglab/codemode-go/examples/brakinglab/analysis"
)

// cornerCacheSessions bounds the per-session corner measurements kept in
// memory: about 40 KiB a session (20 laps × 20 corners), so 10 MiB at most.
const cornerCacheSessions = 256

// cornerCache keeps the corner measurements of every valid lap of a
// session, keyed by session ID, so getWeakCorners, getCornerAnalysis and
// getBrakingZones do not decode and measure the same telemetry on every
// call. It needs no invalidation: a session's laps are written once, with
// the session (store.InsertSessions), and never change, and session IDs are
// random and never reused. Ownership is not its job: callers look the
// session up for the caller first, and only then ask the cache, so a
// deleted or foreign session is refused before any cached data is read.
// Each replica keeps its own; nothing in it can be stale.
type cornerCache struct {
	c *lru.Cache[string, map[int][]analysis.CornerLap]
}

func newCornerCache() *cornerCache {
	c, err := lru.New[string, map[int][]analysis.CornerLap](cornerCacheSessions)
	if err != nil {
		panic(err) // only for a size < 1
	}
	return &cornerCache{c: c}
}

func (c *cornerCache) get(sessionID string) (map[int][]analysis.CornerLap, bool) {
	return c.c.Get(sessionID)
}

func (c *cornerCache) put(sessionID string, laps map[int][]analysis.CornerLap) {
	c.c.Add(sessionID, laps)
}
