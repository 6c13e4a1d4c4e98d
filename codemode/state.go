package codemode

import (
	"context"
	"time"

	"github.com/brakinglab/codemode-go/internal/httpmw"
)

// The three pieces of HTTP state a Server keeps between requests are
// interfaces, so that replicas behind a load balancer can share them. The
// defaults live in the process, which is right for one replica; package
// [github.com/brakinglab/codemode-go/codemode/pgstate] implements all
// three on PostgreSQL for more than one.

// RateLimiter is the per-principal limit on executions (see
// [Options.RatePerSecond]). Set [Options.RateLimiter] to share one budget
// between replicas.
type RateLimiter interface {
	// Take takes n tokens (one per tools/call) from key's bucket, or none.
	// It returns 0 when the request may proceed, or how long the client
	// should wait before retrying: it is then refused with 429 and that
	// Retry-After. An error refuses the request with 503 and is logged;
	// an implementation that would rather let requests through when its
	// store is down returns 0 and no error.
	Take(ctx context.Context, key string, n int) (retryAfter time.Duration, err error)
}

// FailureLimiter is the per-address limit on failed bearer
// authentication (see [Options.AuthFailuresPerSecond]). Set
// [Options.FailureLimiter] to share it between replicas.
type FailureLimiter interface {
	// Blocked returns 0 when key may try to authenticate, or how long it
	// must wait: the request is then refused with 429 before its token is
	// checked. An error refuses the request with 503 and is logged.
	Blocked(ctx context.Context, key string) (retryAfter time.Duration, err error)
	// Failed records one failed authentication of key, even past the
	// limit (failures that happen at once all count). An error is logged.
	Failed(ctx context.Context, key string) error
}

// Cancellations is the registry that lets a client of a protocol revision
// that cancels by notification (2025-06-18, 2025-11-25) cancel a stateless
// tools/call: the notification arrives in a POST of its own, possibly on
// another replica. Set [Options.Cancellations] to deliver it across
// replicas. Keys are opaque strings naming a principal and its client.
type Cancellations interface {
	// Register records that the call id of key runs in this process until
	// release is called (the call has ended). cancel is called, at most
	// once, when a cancellation names exactly this call. An error is
	// logged and the call runs without cancellation by notification.
	Register(ctx context.Context, key, id string, cancel func()) (release func(), err error)
	// Cancel cancels the call id of key, wherever it runs, if exactly one
	// such call is registered: an unknown id (the call has ended) or an
	// ambiguous one (two sessions of one client whose request counters
	// met) cancels nothing, so no run the client did not mean is stopped.
	// A call of key with the same id that ended within the last minute
	// also makes the id ambiguous: the notification may be a late one for
	// that call. An error is logged.
	Cancel(ctx context.Context, key, id string) error
}

// The in-process defaults implement the interfaces.
var (
	_ RateLimiter    = (*httpmw.RateLimiter)(nil)
	_ FailureLimiter = (*httpmw.RateLimiter)(nil)
	_ Cancellations  = (*httpmw.Cancels)(nil)
)
