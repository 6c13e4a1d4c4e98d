package approval

import (
	"context"
	"sync"
	"time"

	"github.com/brakinglab/codemode-go/codemode/state"
)

// spentCache is the in-process state.SpentApprovals: right for one replica.
type spentCache struct {
	now  func() time.Time
	mu   sync.Mutex
	uses map[string]*spentUse
}

type spentUse struct {
	request string
	outcome []byte // nil until settled
	expires time.Time
}

func newSpentCache(now func() time.Time) *spentCache {
	return &spentCache{now: now, uses: map[string]*spentUse{}}
}

// Spend implements state.SpentApprovals. Expired ids are swept as new ones
// arrive: an expired state is refused before it is spent, so the map
// holds at most the approvals of one TTL.
func (c *spentCache) Spend(_ context.Context, id, request string, expires time.Time) (bool, []byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if u, ok := c.uses[id]; ok && now.Before(u.expires) {
		if u.request == request && u.outcome != nil {
			return false, u.outcome, nil
		}
		return false, nil, nil
	}
	for k, u := range c.uses {
		if !now.Before(u.expires) {
			delete(c.uses, k)
		}
	}
	c.uses[id] = &spentUse{request: request, expires: expires}
	return true, nil, nil
}

// Settle implements state.SpentApprovals.
func (c *spentCache) Settle(_ context.Context, id string, outcome []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if u, ok := c.uses[id]; ok {
		u.outcome = outcome
	}
	return nil
}

// NewSpentMemory returns the in-process [state.SpentApprovals] that [New]
// uses when Options.Spent is nil: right for one replica, or for several
// servers in one process that share it.
func NewSpentMemory() state.SpentApprovals { return newSpentCache(time.Now) }
