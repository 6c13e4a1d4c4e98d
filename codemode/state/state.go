// Package state holds the interfaces of the state a codemode Server
// keeps between requests, so that replicas behind a load balancer can
// share it: [RateLimiter], [FailureLimiter], [Cancellations],
// [SpentApprovals], [PendingApprovals] and [SavedFunctions] (with the
// optional [SavedChanges]). Package codemode uses the first three,
// package approval the next two, package saved the last; package
// [github.com/brakinglab/codemode-go/codemode/pgstate] implements them all
// on PostgreSQL. The defaults live in the process, which is right for one
// replica.
//
// Each method's documentation says what its errors mean: an
// implementation chooses between failing closed (an error) and failing
// open where the method allows it.
//
// This package imports nothing of the module but the in-process
// defaults it checks against, so that codemode, approval and the stores
// can all import it.
package state

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/brakinglab/codemode-go/internal/httpmw"
)

// RateLimiter is the per-principal limit on executions (see
// codemode.RateLimitOptions.RatePerSecond). Set codemode.SharedState.RateLimiter to share one budget
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
// authentication (see codemode.RateLimitOptions.AuthFailuresPerSecond). Set
// codemode.SharedState.FailureLimiter to share it between replicas.
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
// another replica. Set codemode.SharedState.Cancellations to deliver it across
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

// SpentApprovals is the replay cache that spends each approval once: the
// sealed request state of an input-required result (2026-07-28) is
// consumed by the first tools/call that carries it back. Set
// approval.Options.Spent to share it between replicas. Ids are random
// and opaque; request is a digest of the whole request (state and answer).
type SpentApprovals interface {
	// Spend marks id used by request until expires and reports whether
	// this is its first use. When it is not, and the first use carried the
	// same request and has settled, outcome is what it returned, for a
	// client retrying after a lost response; otherwise outcome is nil and
	// the request is refused. An error refuses the request and is logged.
	Spend(ctx context.Context, id, request string, expires time.Time) (first bool, outcome []byte, err error)
	// Settle stores the outcome of id's first use.
	Settle(ctx context.Context, id string, outcome []byte) error
}

// PendingApprovalRetention is how long a store keeps an approval after
// its link expires: an accepted approval can still be used by its re-run,
// and an unanswered one is still reported as expired, for this long.
// Stores may delete an approval after Expires plus this.
const PendingApprovalRetention = time.Hour

// PendingApproval is one approval waiting on the approval page, as a
// [PendingApprovals] store keeps it.
type PendingApproval struct {
	// ID is random, 22 URL-safe characters.
	ID string
	// Match names what a re-run must be to use it: a digest of the
	// principal, the tool and the code.
	Match string
	// Subject is the principal the execution ran as: the only one who
	// may see or answer the page.
	Subject string
	// Created and Expires bound when it can be answered.
	Created, Expires time.Time
	// Answer is "" until the user answers, then "accept" or "decline".
	Answer string
	// State is the execution, opaque to the store.
	State []byte
}

// The default caps on approvals awaiting an answer (unanswered and not
// expired at the new approval's Created), which a [PendingApprovals]
// store enforces in Put: each holds an execution's state (up to a few
// hundred KiB), and without a cap one user's script could leave hundreds
// waiting. A new approval over a cap is refused, never an older one
// dropped: an approval the user may still answer is never lost, and the
// refused call is not run.
const (
	DefaultMaxPendingPerSubject = 20
	DefaultMaxPending           = 1000
)

// PendingLimitError is what [PendingApprovals.Put] returns when the new
// approval would exceed a cap on approvals awaiting an answer. Nothing is
// stored.
type PendingLimitError struct {
	// Subject is the principal at its cap, or "" when the cap of the
	// whole store is reached.
	Subject string
	// Limit is the cap reached.
	Limit int
}

func (e *PendingLimitError) Error() string {
	if e.Subject == "" {
		return fmt.Sprintf("codemode: %d approvals are already waiting for an answer, the most the store keeps", e.Limit)
	}
	return fmt.Sprintf("codemode: %q already has %d approvals waiting for an answer, the most one principal may have", e.Subject, e.Limit)
}

// PendingApprovals keeps the approvals of the approval page
// (approval.Page). Set approval.Page.Store to share them between replicas.
type PendingApprovals interface {
	// Put stores a new approval; its ID is not in the store. It returns a
	// *[PendingLimitError], and stores nothing, when p.Subject already has
	// its cap of approvals awaiting an answer or the store its total cap
	// (by default [DefaultMaxPendingPerSubject] and [DefaultMaxPending]).
	Put(ctx context.Context, p PendingApproval) error
	// Get returns the approval id, or nil and no error when there is
	// none.
	Get(ctx context.Context, id string) (*PendingApproval, error)
	// Latest returns the newest approval (by Created) stored with match,
	// or nil and no error when there is none.
	Latest(ctx context.Context, match string) (*PendingApproval, error)
	// Answer sets the answer of id if it has none yet and has not expired
	// at now, and reports whether it did. An answer is never changed.
	Answer(ctx context.Context, id, answer string, now time.Time) (bool, error)
}

// SavedFunction is one version of a saved function, as a
// [SavedFunctions] store keeps it. The store keeps its fields as given;
// package saved checks them before they are stored.
type SavedFunction struct {
	// Owner is the subject of the principal who saved it.
	Owner string
	// Name is how scripts call it: saved.Name.
	Name string
	// Version is 1 for the first save of Owner's Name, one more for each
	// save after it; the store assigns it.
	Version int
	// Published: every principal may call it, as themselves. It applies
	// to every version of the name.
	Published bool
	// Description, Code, Input and Output (JSON Schemas; Output may be
	// empty) are what was saved.
	Description, Code string
	Input, Output     []byte
	// Tier is the tier derived at save time ("READ-ONLY", "CREATIVE",
	// "MUTATING"); Uses the functions the code calls ("ns.fn"), sorted.
	Tier string
	Uses []string
	// Created is when this version was saved.
	Created time.Time
}

// ErrSavedLimit is returned by SavedFunctions.Save when the owner already
// has as many names as the limit allows and the name is a new one.
var ErrSavedLimit = errors.New("saved functions: the owner has the most names allowed")

// SavedFunctions keeps saved functions and every version of them. Set
// saved.Options.Store to share them between replicas (pgstate). Every
// error fails the operation and is reported to the caller.
type SavedFunctions interface {
	// Save stores f as a new version of f.Owner's f.Name and returns its
	// version (the store ignores f.Version and f.Published: a new version
	// keeps the name's published mark). When f.Name is new and the owner
	// already has maxNames names, it stores nothing and returns
	// ErrSavedLimit.
	Save(ctx context.Context, f SavedFunction, maxNames int) (version int, err error)
	// Get returns version of owner's name (0: the latest), or nil and no
	// error when there is none.
	Get(ctx context.Context, owner, name string, version int) (*SavedFunction, error)
	// Published returns version (0: the latest) of the published function
	// name, whoever owns it, or nil and no error when there is none.
	Published(ctx context.Context, name string, version int) (*SavedFunction, error)
	// List returns the latest version of each of owner's functions and of
	// each published function, sorted by name then owner.
	List(ctx context.Context, owner string) ([]SavedFunction, error)
	// History returns every version of owner's name, oldest first.
	History(ctx context.Context, owner, name string) ([]SavedFunction, error)
	// Remove deletes every version of owner's name and reports whether
	// there was one.
	Remove(ctx context.Context, owner, name string) (bool, error)
	// Publish sets the published mark of owner's name and reports whether
	// the name exists.
	Publish(ctx context.Context, owner, name string, published bool) (bool, error)
}

// SavedChanges is what a [SavedFunctions] store implements when it can
// report the changes every replica makes to it, so that each replica
// tells its own connected clients: package saved (Library.WatchAll)
// watches a store that implements it, and otherwise reports only the
// changes its own Library makes, which replicas sharing the store then
// do not see.
type SavedChanges interface {
	// WatchSaved calls fn after each save, publication, withdrawal and
	// removal committed to the store, by any replica (this one
	// included), until stop is called. owner is the function's owner;
	// everyone says that the change concerns every principal (the
	// function is or was published), and then owner may be "". A change
	// that was not stored (an error, a save over the limit, the removal
	// of a name there is none of) is not reported. When changes may have
	// been missed (a store that lost its link to the other replicas and
	// has it back), fn is called once with "" and true: every principal
	// should read their functions again. fn must not block; it may be
	// called concurrently.
	WatchSaved(fn func(owner string, everyone bool)) (stop func())
}
