package approval

import (
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/sandbox"
)

// Options says which calls wait for the user's approval and how
// approvals are sealed. See the README section "Writes the user approves".
//
// A call that needs approval is first validated as a dry run (decoding,
// validation, the Validate hook, scopes); nothing is written and the
// execution stops. The server asks the user through MCP elicitation to
// approve the validated calls, listing the writes the execution already
// made. On accept the execution resumes: the code runs again, its earlier
// host calls answered from their record (no write runs twice) and its
// clock and Math.random replayed, until it reaches the approved calls.
// A resumed run that makes a call the record does not hold ends in
// APPROVAL_DIVERGED. Accepting approves the function for the rest of the
// execution (a loop deleting three notes asks once), unless PerCall.
type Options struct {
	// Tiers lists the tiers whose functions need approval unless their
	// catalog.Func says otherwise (catalog.ApprovalRequired,
	// catalog.ApprovalNotRequired). catalog.ReadOnly is refused: a read
	// has no dry run to show the user.
	Tiers []catalog.Tier
	// Key seals the approvals that travel in an input-required result's
	// request state (2026-07-28): they are encrypted and authenticated, so
	// a client can neither read nor alter them. It must be at least 32
	// random bytes and the same on every replica behind a load balancer.
	// Nil means a random key per Server: right for a single replica, and
	// pending approvals do not survive a restart.
	Key []byte
	// TTL is how long an approval stays valid; default
	// DefaultTTL.
	TTL time.Duration
	// Fallback says what happens when a call needs approval and the
	// client cannot ask the user. The default refuses the call.
	Fallback Fallback
	// PerCall asks the user about every call that needs approval on its
	// own. By default the user is asked at most once per function per
	// execution: accepting approves that function's further calls in the
	// same execution, and every response lists the writes they made.
	PerCall bool
	// Spent spends each approval sent back in a request state once
	// (2026-07-28), and each approval of the Page once. Nil means an
	// in-process cache, right for one replica; replicas sharing Key must
	// share it too ([github.com/brakinglab/codemode-go/codemode/pgstate]).
	Spent state.SpentApprovals
	// Page, when set, lets a client that cannot ask the user (no
	// elicitation, or only URL-mode elicitation) still get approvals: the
	// user answers on a web page the host serves (see [Page]).
	// Nil means such a client's calls that need approval fail with
	// APPROVAL_UNAVAILABLE (or run, with Fallback Allow).
	Page *Page
	// MaxWaitingPerSubject caps the questions one principal may have open
	// over form-mode elicitation, each holding its execution's state in
	// this process while the user decides (anonymous callers share one
	// count). A call over the cap is not asked and not run: the model is
	// told to wait for the user's answers. Zero means
	// DefaultMaxWaitingPerSubject; negative is an error. (Approvals on the
	// Page are capped by its store; a 2026-07-28 question travels in the
	// client's request state and holds nothing here.)
	MaxWaitingPerSubject int
}

// DefaultMaxWaitingPerSubject is the default of
// Options.MaxWaitingPerSubject.
const DefaultMaxWaitingPerSubject = 20

// DefaultTTL is how long an approval stays valid by default.
const DefaultTTL = 10 * time.Minute

// minApprovalKey is the shortest Key accepted, in bytes.
const minApprovalKey = 32

// maxApprovalRounds bounds the questions one execution may ask.
const maxApprovalRounds = 10

// Fallback is what happens to a call that needs approval when the
// client cannot ask the user.
type Fallback int

const (
	// Refuse (the default) validates the call, writes nothing and
	// tells the model which call needed approval and that the client
	// cannot ask the user.
	Refuse Fallback = iota
	// Allow runs calls that need approval without asking when the
	// client cannot ask. Choose it only where the client itself confirms
	// every tool call with the user.
	Allow
)

// The error kinds of approval outcomes, as the model reads them
// (structuredContent.error.kind) and as a Go caller matches them:
//
//	errors.Is(err, &sandbox.Error{Kind: approval.KindDeclined})
const (
	// KindDeclined: the user declined the calls; they were not run.
	KindDeclined sandbox.Kind = "APPROVAL_DECLINED"
	// KindCancelled: the user dismissed the question, or did not
	// answer within the approval's TTL.
	KindCancelled sandbox.Kind = "APPROVAL_CANCELLED"
	// KindUnavailable: the server cannot ask this client's user
	// (the message says why), or asking failed.
	KindUnavailable sandbox.Kind = "APPROVAL_UNAVAILABLE"
	// KindInvalid: a request state or approval link that is
	// altered, expired, already used, or issued for other code, another
	// user or another tool.
	KindInvalid sandbox.Kind = "APPROVAL_INVALID"
	// KindDiverged: a resumed run would have made a call other
	// than the ones recorded or approved, or the run could not be resumed
	// faithfully; nothing new was written.
	KindDiverged sandbox.Kind = "APPROVAL_DIVERGED"
	// KindTooLarge: what the execution read before the call that
	// needs approval is more than an approval can carry.
	KindTooLarge sandbox.Kind = "APPROVAL_TOO_LARGE"
	// KindPending: the user is asked on the approval page; the
	// result carries the link (structuredContent.approvalUrl).
	KindPending sandbox.Kind = "APPROVAL_PENDING"
	// KindExpired: the approval page's link expired unanswered;
	// the result carries a new one.
	KindExpired sandbox.Kind = "APPROVAL_EXPIRED"
	// KindRequired is the audit ErrorKind of a run that stopped to
	// ask the user through an input-required result (2026-07-28).
	KindRequired sandbox.Kind = "APPROVAL_REQUIRED"
)
