package approval

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode/state"
)

// Service holds the approvals of one server: the sealing key and the
// options that do not depend on the functions served, the spent
// approvals and the approval page. A server makes one with [New] and
// asks it for a [Policy] whenever the functions it serves change.
type Service struct {
	aead     cipher.AEAD
	tiers    []catalog.Tier
	ttl      time.Duration
	fallback Fallback
	perCall  bool
	spent    state.SpentApprovals
	page     *pageKeys // nil: no approval page
	now      func() time.Time
	logger   *slog.Logger
	waiting  waitCounts // open form-mode questions per subject
}

// New checks o and derives the sealing key. The key exists even while no
// function needs approval, since the functions served may change.
func New(o Options, cfg Config) (*Service, error) {
	for _, t := range o.Tiers {
		if !t.Strict() {
			return nil, fmt.Errorf("approval.Options.Tiers: %s functions cannot require approval: a read has no dry run to show the user", t)
		}
	}
	if o.Key != nil && len(o.Key) < minApprovalKey {
		return nil, fmt.Errorf("approval.Options.Key: %d bytes, want at least %d random bytes", len(o.Key), minApprovalKey)
	}
	if o.TTL < 0 {
		return nil, errors.New("approval.Options.TTL: negative")
	}
	if o.Fallback != Refuse && o.Fallback != Allow {
		return nil, fmt.Errorf("approval.Options.Fallback: unknown value %d", int(o.Fallback))
	}
	a := &Service{tiers: slices.Clone(o.Tiers), ttl: o.TTL, fallback: o.Fallback, perCall: o.PerCall, spent: o.Spent, now: time.Now, logger: cfg.Logger}
	if a.logger == nil {
		a.logger = slog.New(slog.DiscardHandler)
	}
	if a.spent == nil {
		a.spent = newSpentCache(func() time.Time { return a.now() })
	}
	if a.ttl == 0 {
		a.ttl = DefaultTTL
	}
	if o.MaxWaitingPerSubject < 0 {
		return nil, errors.New("approval.Options.MaxWaitingPerSubject: negative")
	}
	if a.waiting.max = o.MaxWaitingPerSubject; a.waiting.max == 0 {
		a.waiting.max = DefaultMaxWaitingPerSubject
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

// SetClock replaces the clock approvals expire by (time.Now by
// default), for tests that let an approval expire without waiting. Call
// it before the Service serves; now must be safe for concurrent use.
func (s *Service) SetClock(now func() time.Time) { s.now = now }

// Func is a function a server serves, as [Service.Policy] reads it.
type Func struct {
	// Name is qualified: namespace.function.
	Name     string
	Tier     catalog.Tier
	Approval catalog.Approval
}

// Policy says which functions need approval, for one set of functions a
// server serves.
type Policy struct {
	required map[string]catalog.Tier // qualified name → tier, for functions that need approval
	*Service
}

// Policy returns the policy of fns: a function needs approval when its
// tier is in Options.Tiers, unless its catalog.Func says otherwise. It
// returns nil when none of fns needs approval.
func (s *Service) Policy(fns []Func) *Policy {
	a := &Policy{required: map[string]catalog.Tier{}, Service: s}
	for _, f := range fns {
		need := slices.Contains(s.tiers, f.Tier)
		switch f.Approval {
		case catalog.ApprovalRequired:
			need = true
		case catalog.ApprovalNotRequired:
			need = false
		}
		if need {
			a.required[f.Name] = f.Tier
		}
	}
	if len(a.required) == 0 {
		return nil
	}
	return a
}

// Required reports whether calls of fn (qualified) wait for the user's
// approval. A nil Policy requires none.
func (p *Policy) Required(fn string) bool {
	if p == nil {
		return false
	}
	_, ok := p.required[fn]
	return ok
}

// Any reports whether any of names needs approval.
func (p *Policy) Any(names []string) bool {
	return slices.ContainsFunc(names, p.Required)
}

// Len reports how many functions need approval.
func (p *Policy) Len() int {
	if p == nil {
		return 0
	}
	return len(p.required)
}

// waitCounts counts the form-mode questions open per subject.
type waitCounts struct {
	max int
	mu  sync.Mutex
	m   map[string]int
}

// take counts one more open question of subject, unless it has max
// already; release uncounts it.
func (w *waitCounts) take(subject string) (release func(), ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m[subject] >= w.max {
		return nil, false
	}
	if w.m == nil {
		w.m = map[string]int{}
	}
	w.m[subject]++
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.m[subject]--; w.m[subject] == 0 {
			delete(w.m, subject)
		}
	}, true
}
