package codemode

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/sandbox"
)

// ApprovalOptions says which calls wait for the user's approval and how
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
type ApprovalOptions struct {
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
	// DefaultApprovalTTL.
	TTL time.Duration
	// Fallback says what happens when a call needs approval and the
	// client cannot ask the user. The default refuses the call.
	Fallback ApprovalFallback
	// PerCall asks the user about every call that needs approval on its
	// own. By default the user is asked at most once per function per
	// execution: accepting approves that function's further calls in the
	// same execution, and every response lists the writes they made.
	PerCall bool
	// Spent spends each approval sent back in a request state once
	// (2026-07-28), and each approval of the Page once. Nil means an
	// in-process cache, right for one replica; replicas sharing Key must
	// share it too ([github.com/brakinglab/codemode-go/codemode/pgstate]).
	Spent SpentApprovals
	// Page, when set, lets a client that cannot ask the user (no
	// elicitation, or only URL-mode elicitation) still get approvals: the
	// user answers on a web page the host serves (see [ApprovalPage]).
	// Nil means such a client's calls that need approval fail with
	// APPROVAL_UNAVAILABLE (or run, with Fallback ApprovalAllow).
	Page *ApprovalPage
}

// DefaultApprovalTTL is how long an approval stays valid by default.
const DefaultApprovalTTL = 10 * time.Minute

// minApprovalKey is the shortest Key accepted, in bytes.
const minApprovalKey = 32

// maxApprovalRounds bounds the questions one execution may ask.
const maxApprovalRounds = 10

// ApprovalFallback is what happens to a call that needs approval when the
// client cannot ask the user.
type ApprovalFallback int

const (
	// ApprovalRefuse (the default) validates the call, writes nothing and
	// tells the model which call needed approval and that the client
	// cannot ask the user.
	ApprovalRefuse ApprovalFallback = iota
	// ApprovalAllow runs calls that need approval without asking when the
	// client cannot ask. Choose it only where the client itself confirms
	// every tool call with the user.
	ApprovalAllow
)

// The error kinds of approval outcomes, as the model reads them
// (structuredContent.error.kind) and as a Go caller matches them:
//
//	errors.Is(err, &sandbox.Error{Kind: codemode.KindApprovalDeclined})
const (
	// KindApprovalDeclined: the user declined the calls; they were not run.
	KindApprovalDeclined sandbox.Kind = "APPROVAL_DECLINED"
	// KindApprovalCancelled: the user dismissed the question, or did not
	// answer within the approval's TTL.
	KindApprovalCancelled sandbox.Kind = "APPROVAL_CANCELLED"
	// KindApprovalUnavailable: the server cannot ask this client's user
	// (the message says why), or asking failed.
	KindApprovalUnavailable sandbox.Kind = "APPROVAL_UNAVAILABLE"
	// KindApprovalInvalid: a request state or approval link that is
	// altered, expired, already used, or issued for other code, another
	// user or another tool.
	KindApprovalInvalid sandbox.Kind = "APPROVAL_INVALID"
	// KindApprovalDiverged: a resumed run would have made a call other
	// than the ones recorded or approved, or the run could not be resumed
	// faithfully; nothing new was written.
	KindApprovalDiverged sandbox.Kind = "APPROVAL_DIVERGED"
	// KindApprovalTooLarge: what the execution read before the call that
	// needs approval is more than an approval can carry.
	KindApprovalTooLarge sandbox.Kind = "APPROVAL_TOO_LARGE"
	// KindApprovalPending: the user is asked on the approval page; the
	// result carries the link (structuredContent.approvalUrl).
	KindApprovalPending sandbox.Kind = "APPROVAL_PENDING"
	// KindApprovalExpired: the approval page's link expired unanswered;
	// the result carries a new one.
	KindApprovalExpired sandbox.Kind = "APPROVAL_EXPIRED"
	// KindApprovalRequired is the audit ErrorKind of a run that stopped to
	// ask the user through an input-required result (2026-07-28).
	KindApprovalRequired sandbox.Kind = "APPROVAL_REQUIRED"
)

// The approval audit events. Each names one call (Function, Tier, Args).
const (
	// ApprovalRequested: a call was validated and the user is asked.
	ApprovalRequested AuditKind = "approval.requested"
	// ApprovalGranted: the user accepted the call.
	ApprovalGranted AuditKind = "approval.granted"
	// ApprovalDeclined: the user declined or dismissed the request, or the
	// client could not ask (ErrorKind says which).
	ApprovalDeclined AuditKind = "approval.declined"
	// ApprovalDiverged: a resumed run made a call that differs from the
	// record of the runs before it; it was not run.
	ApprovalDiverged AuditKind = "approval.diverged"
)

// approver holds the approval policy and the sealing key of one view of
// a Server: which functions need approval changes when the catalogues do,
// the key does not.
type approver struct {
	required map[string]catalog.Tier // qualified name → tier, for functions that need approval
	*approvalKeys
}

// approvalKeys is what every view's approver shares: the sealing key and
// the options that do not depend on the functions.
type approvalKeys struct {
	aead     cipher.AEAD
	ttl      time.Duration
	fallback ApprovalFallback
	perCall  bool
	spent    SpentApprovals
	page     *pageKeys // nil: no approval page
	now      func() time.Time
}

// newApprovalKeys checks o and derives the sealing key. The key exists
// even while no function needs approval, since a refresh may add one.
func newApprovalKeys(o ApprovalOptions) (*approvalKeys, error) {
	for _, t := range o.Tiers {
		if !t.Strict() {
			return nil, fmt.Errorf("ApprovalOptions.Tiers: %s functions cannot require approval: a read has no dry run to show the user", t)
		}
	}
	if o.Key != nil && len(o.Key) < minApprovalKey {
		return nil, fmt.Errorf("ApprovalOptions.Key: %d bytes, want at least %d random bytes", len(o.Key), minApprovalKey)
	}
	if o.TTL < 0 {
		return nil, errors.New("ApprovalOptions.TTL: negative")
	}
	if o.Fallback != ApprovalRefuse && o.Fallback != ApprovalAllow {
		return nil, fmt.Errorf("ApprovalOptions.Fallback: unknown value %d", int(o.Fallback))
	}
	a := &approvalKeys{ttl: o.TTL, fallback: o.Fallback, perCall: o.PerCall, spent: o.Spent, now: time.Now}
	if a.spent == nil {
		a.spent = newSpentCache(func() time.Time { return a.now() })
	}
	if a.ttl == 0 {
		a.ttl = DefaultApprovalTTL
	}
	key := o.Key
	if key == nil {
		key = make([]byte, minApprovalKey)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("approval key: %w", err)
		}
	}
	// A derived key keeps the sealing key apart from any other use of Key.
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("codemode approval sealing v1"))
	block, err := aes.NewCipher(mac.Sum(nil))
	if err != nil {
		return nil, fmt.Errorf("approval key: %w", err)
	}
	if a.aead, err = cipher.NewGCM(block); err != nil {
		return nil, fmt.Errorf("approval key: %w", err)
	}
	if o.Page != nil {
		if a.page, err = newPageKeys(o.Page, o.Fallback); err != nil {
			return nil, err
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte("codemode approval page answer v1"))
		a.page.csrf = mac.Sum(nil)
	}
	return a, nil
}

// forFunctions returns the approver of fns, or nil when none of them
// needs approval.
func (k *approvalKeys) forFunctions(fns []boundFunc, o ApprovalOptions) *approver {
	a := &approver{required: map[string]catalog.Tier{}, approvalKeys: k}
	for _, f := range fns {
		need := slices.Contains(o.Tiers, f.Tier)
		switch f.Approval {
		case catalog.ApprovalRequired:
			need = true
		case catalog.ApprovalNotRequired:
			need = false
		}
		if need {
			a.required[f.qualified()] = f.Tier
		}
	}
	if len(a.required) == 0 {
		return nil
	}
	return a
}

// approvedCall is one call the user sees and approves: the function
// (namespace.function) and its canonical arguments.
type approvedCall struct {
	Fn   string          `json:"fn"`
	Args json.RawMessage `json:"args"`
}

// approvalState is what an input-required result's request state carries,
// sealed: what the approval is bound to, the calls the user is asked to
// approve, and the execution so far (approvalExec).
type approvalState struct {
	V       int            `json:"v"`
	ID      string         `json:"id"` // random: the key that spends it once
	Subject string         `json:"sub"`
	Client  string         `json:"cid"`
	Tool    string         `json:"tool"`
	Code    string         `json:"code"` // hex SHA-256 of the code
	Calls   []approvedCall `json:"calls"`
	Expires int64          `json:"exp"` // Unix seconds
	// ClientName is who asks, as the approval page shows it.
	ClientName string `json:"cname,omitempty"`
	approvalExec
}

// approvalStateVersion is the format of a sealed state. Version 2 names
// calls namespace.function and carries the execution's record and an id
// that spends it once; a version 1 state is refused as invalid.
const approvalStateVersion = 2

// sealAD is the additional data of every sealed state: a state sealed for
// another purpose with the same key cannot be opened as an approval.
var sealAD = []byte("codemode approval state v2")

// seal encrypts and authenticates st for the request state.
func (a *approvalKeys) seal(st *approvalState) (string, error) {
	st.V = approvalStateVersion
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return "", err
	}
	st.ID = base64.RawURLEncoding.EncodeToString(id)
	plain, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	if len(plain) > maxRecordBytes {
		return "", &errRecordTooLarge{size: len(plain)}
	}
	nonce := make([]byte, a.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(a.aead.Seal(nonce, nonce, plain, sealAD)), nil
}

// errRecordTooLarge: the execution's record is over maxRecordBytes.
type errRecordTooLarge struct{ size int }

func (e *errRecordTooLarge) Error() string {
	return fmt.Sprintf("approval record of %d bytes, over %d", e.size, maxRecordBytes)
}

// errApprovalInvalid is why a request state is refused.
var errApprovalInvalid = errors.New("approval state invalid")

// approvalInvalidMessage is what the model reads for a refused state.
const approvalInvalidMessage = "the approval sent with this call is not valid for it (altered, expired, already used, or issued for other code, another user or another tool); nothing was written by this call. Run the code again to ask the user again."

// open authenticates and decrypts a request state and checks what it is
// bound to.
func (a *approvalKeys) open(token string, want *approvalState) (*approvalState, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) < a.aead.NonceSize() {
		return nil, errApprovalInvalid
	}
	n := a.aead.NonceSize()
	plain, err := a.aead.Open(nil, raw[:n], raw[n:], sealAD)
	if err != nil {
		return nil, errApprovalInvalid
	}
	var st approvalState
	if err := json.Unmarshal(plain, &st); err != nil || st.V != approvalStateVersion || st.ID == "" {
		return nil, errApprovalInvalid
	}
	if st.Subject != want.Subject || st.Client != want.Client || st.Tool != want.Tool || st.Code != want.Code {
		return nil, errApprovalInvalid
	}
	if a.now().Unix() >= st.Expires {
		return nil, errApprovalInvalid
	}
	return &st, nil
}
