package codemode

import (
	"encoding/json"

	"github.com/brakinglab/codemode-go/internal/discover"
)

// MaxDiscoveryCalls is the most discovery calls (codemode.search,
// codemode.describe) one execution may make. They do not spend
// Limits.MaxCalls, but they are bounded: answers are cached per catalogue
// version and tool, each execution may make this many, and its uncached
// answers may take 2 s of host time (internal/discover's Budget).
const MaxDiscoveryCalls = discover.MaxCalls

// discover answers a discovery call of h's execution from the cache or by
// computing it, within the execution's budget. The cache is the
// server's: what only this principal may see (saved functions) is added
// to the cached answer, never into it.
func (h *execHost) discover(fn string, args json.RawMessage) (json.RawMessage, error) {
	return h.savedDiscover(fn, args, func(args json.RawMessage) (json.RawMessage, error) {
		version := h.spec.v.gen // a refresh makes a new view: older answers are dropped
		key := discover.Key{Tool: h.spec.name, Fn: fn, Args: string(args)}
		return h.disc.Answer(&h.s.discCache, version, key, func() (json.RawMessage, error) {
			return h.s.discoveryCall(h.spec, fn, args)
		})
	})
}
