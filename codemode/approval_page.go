package codemode

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/httpmw"
	"github.com/brakinglab/codemode-go/sandbox"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ApprovalPage is a web page on which the user approves or declines the
// calls of an execution whose client cannot ask the user: one that
// declares no elicitation, or only URL-mode elicitation, or whose request
// before protocol revision 2026-07-28 came outside a session (see
// Options.Stateless).
//
// When such an execution reaches a call that needs approval, it stops as
// it does for any approval (the calls before it have run), and the
// pending approval is stored (Store): the exact calls with their
// validated arguments, the writes the execution already made, the
// client's name, the principal and the expiry. Then:
//
//   - A client that declares no elicitation gets an APPROVAL_PENDING
//     error whose text gives the model a link to pass on to the user
//     (also in structuredContent.approvalUrl), and tells it to run the
//     same code again once the user has answered.
//   - A client that declares URL-mode elicitation (MCP 2025-11-25) is
//     sent the link in elicitation/create with mode "url", and the same
//     tools/call waits for the user's answer on the page.
//
// The re-run is matched to its approval by the principal (subject and
// OAuth client id), the tool and the SHA-256 of the code: the newest
// approval stored for that match answers it. On accept the re-run
// resumes the execution as after an elicitation: the earlier calls are
// answered from the execution's record (no write runs twice), then the
// approved calls run, once; an approval is spent by the first re-run
// (ApprovalOptions.Spent). A re-run before the user answered gets
// APPROVAL_PENDING again and runs nothing; after a decline,
// APPROVAL_DECLINED; after the link expired unanswered, APPROVAL_EXPIRED
// with a new link. An approval that was accepted stays usable for one TTL
// after its link expires.
//
// Only the principal the execution ran as can see or answer the page: a
// request signed in as anyone else gets the same 404 as an id that does
// not exist. Ids are 128 random bits, answered once, and expire after
// ApprovalOptions.TTL. Answers must carry a token bound to the id and
// the principal, and cross-site requests (Origin, Sec-Fetch-Site) are
// refused; every response forbids framing and caching. Requests are
// rate-limited per source.
type ApprovalPage struct {
	// URL is the absolute URL where the host serves
	// [Server.ApprovalHandler], ending in "/": a link is URL followed by
	// the approval's id. Required.
	URL string
	// Authenticate returns the principal a browser request is signed in
	// as (typically from the host's session cookie, which should be
	// SameSite), and false when it is not signed in. Only the Subject is
	// compared with the execution's principal. Required.
	Authenticate func(r *http.Request) (catalog.Principal, bool)
	// SignIn answers a request that is not signed in, typically with a
	// redirect to the host's sign-in page that comes back to r.URL. Nil
	// answers 401 with a short page.
	SignIn http.HandlerFunc
	// Store keeps the pending approvals. Nil means in-process, right for
	// one replica; replicas must share one
	// ([github.com/brakinglab/codemode-go/codemode/pgstate]), along
	// with ApprovalOptions.Key and ApprovalOptions.Spent.
	Store PendingApprovals
	// Limiter limits the page's requests per source (SourceOf). Nil means
	// an in-process limit of DefaultPageRatePerSec, bursts of
	// DefaultPageBurst.
	Limiter RateLimiter
	// SourceOf names the source of a request for Limiter, for example the
	// client address a trusted reverse proxy reports. Nil means the client
	// address as the other limits see it (Options.ClientAddress, or else
	// the peer address; an IPv6 address counts by its /64).
	SourceOf func(r *http.Request) string
}

// The default limit of approval page requests per source.
const (
	DefaultPageRatePerSec = 1.0
	DefaultPageBurst      = 20
)

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

// PendingApprovals keeps the approvals of [ApprovalPage]. Set
// [ApprovalPage.Store] to share them between replicas.
type PendingApprovals interface {
	// Put stores a new approval; its ID is not in the store.
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

// pageKeys is what the page needs at run time.
type pageKeys struct {
	url      string
	origin   string // scheme://host of url
	auth     func(*http.Request) (catalog.Principal, bool)
	signIn   http.HandlerFunc
	store    PendingApprovals
	limiter  RateLimiter
	sourceOf func(*http.Request) string
	csrf     []byte // HMAC key of the answer tokens
	waiters  pageWaiters
}

// pageWaiters wakes a call waiting on an approval as soon as this
// replica's page stores the answer. An answer stored by another replica
// reaches the call at its next read of the store (pagePoll).
type pageWaiters struct {
	mu sync.Mutex
	m  map[string]*pageWaiter
}

type pageWaiter struct {
	ch chan struct{} // closed by wake
	n  int           // calls waiting
}

// wait returns a channel closed when id is answered here, and the release
// to call once the caller stops waiting.
func (w *pageWaiters) wait(id string) (<-chan struct{}, func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[string]*pageWaiter{}
	}
	e := w.m[id]
	if e == nil {
		e = &pageWaiter{ch: make(chan struct{})}
		w.m[id] = e
	}
	e.n++
	return e.ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if e.n--; e.n == 0 && w.m[id] == e {
			delete(w.m, id)
		}
	}
}

// wake wakes the calls waiting on id.
func (w *pageWaiters) wake(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e := w.m[id]; e != nil {
		close(e.ch)
		delete(w.m, id)
	}
}

// newPageKeys checks p.
func newPageKeys(p *ApprovalPage, fallback ApprovalFallback) (*pageKeys, error) {
	u, err := url.Parse(p.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || !strings.HasSuffix(u.Path, "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("ApprovalOptions.Page.URL: %q is not an absolute http(s) URL ending in \"/\" without query", p.URL)
	}
	if p.Authenticate == nil {
		return nil, errors.New("ApprovalOptions.Page.Authenticate: required: the page must know who the browser is signed in as")
	}
	if fallback == ApprovalAllow {
		return nil, errors.New("ApprovalOptions: Page and Fallback ApprovalAllow contradict each other: with a page every client can ask the user")
	}
	k := &pageKeys{url: p.URL, origin: u.Scheme + "://" + u.Host, auth: p.Authenticate, signIn: p.SignIn, store: p.Store, limiter: p.Limiter, sourceOf: p.SourceOf}
	if k.store == nil {
		k.store = newPendingCache()
	}
	if k.limiter == nil {
		k.limiter = httpmw.NewRateLimiter(DefaultPageRatePerSec, DefaultPageBurst)
	}
	if k.sourceOf == nil {
		k.sourceOf = func(r *http.Request) string {
			host, _, err := net.SplitHostPort(r.RemoteAddr)
			if err != nil {
				return r.RemoteAddr
			}
			return host
		}
	}
	return k, nil
}

// pageMatch is the Match of an approval of principal sub (client cid)
// running code (hex SHA-256) through tool.
func pageMatch(st *approvalState) string {
	sum := sha256.Sum256([]byte(st.Subject + "\x00" + st.Client + "\x00" + st.Tool + "\x00" + st.Code))
	return hex.EncodeToString(sum[:])
}

// pageSpendKey is the SpentApprovals id of a page approval: kept apart
// from the ids of sealed states.
func pageSpendKey(id string) string { return "page:" + id }

// pageAvailable reports whether this execution can use the page: it has
// one, and a principal with a subject to show it to.
func (s *Server) pageAvailable(host *execHost) bool {
	return s.keys.page != nil && host.principal != nil && host.principal.Subject != ""
}

// putPage stores the approval of pending for the execution ex and
// returns its id and link.
func (s *Server) putPage(ctx context.Context, req *mcp.CallToolRequest, host *execHost, bound *approvalState, ex *approvalExec, pending []pendingCall) (id, link string, expires time.Time, err error) {
	a := s.keys
	st := *bound
	st.Calls, st.approvalExec = callsOf(pending), *ex
	st.ClientName = clientName(req, host)
	now := a.now()
	expires = now.Add(a.ttl)
	st.Expires = expires.Unix()
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", "", time.Time{}, err
	}
	st.V, st.ID = approvalStateVersion, base64.RawURLEncoding.EncodeToString(b)
	plain, err := json.Marshal(&st)
	if err != nil {
		return "", "", time.Time{}, err
	}
	if len(plain) > maxRecordBytes {
		return "", "", time.Time{}, &errRecordTooLarge{size: len(plain)}
	}
	p := PendingApproval{ID: st.ID, Match: pageMatch(bound), Subject: bound.Subject, Created: now, Expires: expires, State: plain}
	if err := a.page.store.Put(ctx, p); err != nil {
		return "", "", time.Time{}, err
	}
	return p.ID, a.page.url + p.ID, expires, nil
}

// pageFailed is the outcome when storing an approval failed.
func (s *Server) pageFailed(ctx context.Context, host *execHost, err error, pending []pendingCall, res *sandbox.Result, made []write) *mcp.CallToolResult {
	var big *errRecordTooLarge
	if errors.As(err, &big) {
		return s.approvalFailed(ctx, host, KindApprovalTooLarge, fmt.Sprintf("%s %s the user's approval, but what the execution read before it (%d KiB) is more than an approval can keep (%d KiB), so the user was not asked and it was not run. %s Read less before the call that needs approval (filter, page, or pick fields), or make that call in an execution of its own.", modelList(pending), needVerb(pending), big.size>>10, maxRecordBytes>>10, writtenNote(made)), res, made)
	}
	s.logger.Error("codemode: storing a pending approval failed", "err", err)
	return s.approvalFailed(ctx, host, KindApprovalUnavailable, fmt.Sprintf("%s %s the user's approval, and the server could not store the request; it was not run. %s Run the same code again in a moment.", modelList(pending), needVerb(pending), writtenNote(made)), res, made)
}

// pageLink is the first answer to a client that cannot ask: the link.
func (s *Server) pageLink(ctx context.Context, req *mcp.CallToolRequest, host *execHost, bound *approvalState, ex *approvalExec, pending []pendingCall, res *sandbox.Result, made []write) *mcp.CallToolResult {
	_, link, _, err := s.putPage(ctx, req, host, bound, ex, pending)
	if err != nil {
		return s.pageFailed(ctx, host, err, pending, res, made)
	}
	for _, p := range pending {
		s.auditApproval(ctx, host, ApprovalRequested, p, "page")
	}
	_, why := channelFor(ctx, req, false) // why the call could not ask, for the model
	out := s.approvalFailed(ctx, host, KindApprovalPending, pendingText(pending, why, link, s.keys.ttl, made), res, made)
	withApprovalURL(out, link)
	return out
}

// pendingText tells the model why the user could not be asked in the
// call, to pass the link on and to run the code again.
func pendingText(pending []pendingCall, why, link string, ttl time.Duration, made []write) string {
	return fmt.Sprintf("%s %s the user's approval, and the server cannot ask the user during this call: %s. Give the user this link to approve or decline %s (valid for %s): %s %s Once the user has answered, run exactly the same code again: it continues where it stopped, without repeating writes already made.", modelList(pending), needVerb(pending), why, itThem(pending), ttl, link, writtenNote(made))
}

// withApprovalURL puts the link in structuredContent.approvalUrl.
func withApprovalURL(out *mcp.CallToolResult, link string) {
	if st, ok := out.StructuredContent.(structured); ok {
		st.ApprovalURL = link
		out.StructuredContent = st
	}
}

// pageResume answers a run of code that matches an approval of the page:
// handled is false when there is none to use, and the run is a new
// execution.
func (s *Server) pageResume(ctx context.Context, req *mcp.CallToolRequest, code string, host *execHost, bound *approvalState) (out *mcp.CallToolResult, handled bool) {
	a := s.keys
	p, err := a.page.store.Latest(ctx, pageMatch(bound))
	if err != nil {
		s.logger.Error("codemode: reading pending approvals failed", "err", err)
		return s.approvalFailed(ctx, host, KindApprovalUnavailable, "the server could not check whether the user answered an approval for this code, so it ran nothing. Run the same code again in a moment.", nil, nil), true
	}
	if p == nil {
		return nil, false
	}
	var st approvalState
	if err := json.Unmarshal(p.State, &st); err != nil || st.V != approvalStateVersion {
		s.logger.Warn("codemode: ignored an unreadable pending approval", "err", err)
		return nil, false
	}
	made := writesOf(st.Record)
	pend := asPending(host.spec.v.approvals, st.Calls)
	now := a.now()
	link := a.page.url + p.ID
	if p.Answer == "" && now.Before(p.Expires) {
		out := s.approvalFailed(ctx, host, KindApprovalPending, fmt.Sprintf("the user has not answered yet: %s %s the user's approval at %s, so nothing was run by this call. %s Ask the user to open the link and answer, then run exactly the same code again.", modelList(pend), needVerb(pend), link, writtenNote(made)), nil, made)
		withApprovalURL(out, link)
		return out, true
	}
	usable := p.Answer == "accept" && now.Before(p.Expires.Add(a.ttl))
	first, prior, err := a.spent.Spend(ctx, pageSpendKey(p.ID), "page", p.Expires.Add(PendingApprovalRetention))
	switch {
	case err != nil:
		s.logger.Error("codemode: spending an approval failed", "err", err)
		return s.approvalFailed(ctx, host, KindApprovalUnavailable, "the server could not check that this approval is used once, so it ran nothing. Run the same code again in a moment.", nil, nil), true
	case !first && prior == nil && usable:
		return s.approvalFailed(ctx, host, KindApprovalInvalid, "another call is running this approved code right now; an approval runs the code once. Nothing was run by this call. Wait for that call's result.", nil, nil), true
	case !first:
		// Used and settled: a new execution of the same code.
		return nil, false
	}
	settle := func(out *mcp.CallToolResult) {
		b, err := json.Marshal(out)
		if err != nil {
			b = []byte("{}")
		}
		if err := a.spent.Settle(ctx, pageSpendKey(p.ID), b); err != nil {
			s.logger.Warn("codemode: storing an approval's outcome failed", "err", err)
		}
	}
	switch {
	case usable:
		s.answered(ctx, host, "accept", pend, made)
		ex := st.approvalExec
		ex.grant(pend, a.perCall)
		out = s.approvalLoop(ctx, req, code, host, bound, &ex)
	case p.Answer == "decline":
		out = s.answered(ctx, host, "decline", pend, made)
	default:
		// Expired: issue a new link for the same execution.
		for _, c := range pend {
			s.auditApproval(ctx, host, ApprovalDeclined, c, "expired")
		}
		_, link, _, err := s.putPage(ctx, req, host, bound, &st.approvalExec, pend)
		if err != nil {
			out = s.pageFailed(ctx, host, err, pend, nil, made)
			break
		}
		for _, c := range pend {
			s.auditApproval(ctx, host, ApprovalRequested, c, "page")
		}
		out = s.approvalFailed(ctx, host, KindApprovalExpired, fmt.Sprintf("the approval of %s expired before it was used, so nothing was run by this call. %s If the user still wants %s, give them this new link (valid for %s): %s Once they have answered, run exactly the same code again.", modelList(pend), writtenNote(made), itThem(pend), a.ttl, link), nil, made)
		withApprovalURL(out, link)
	}
	settle(out)
	return out, true
}

// pageElicit asks a client with URL-mode elicitation to open the page,
// then waits for the user's answer there. It returns nil when the user
// accepted, else the result the model reads.
func (s *Server) pageElicit(ctx context.Context, req *mcp.CallToolRequest, host *execHost, bound *approvalState, ex *approvalExec, pending []pendingCall, res *sandbox.Result, made []write) *mcp.CallToolResult {
	a := s.keys
	id, link, expires, err := s.putPage(ctx, req, host, bound, ex, pending)
	if err != nil {
		return s.pageFailed(ctx, host, err, pending, res, made)
	}
	for _, p := range pending {
		s.auditApproval(ctx, host, ApprovalRequested, p, "url")
	}
	// The approval is this call's: no re-run may use it.
	if _, _, err := a.spent.Spend(ctx, pageSpendKey(id), "url", expires.Add(PendingApprovalRetention)); err != nil {
		s.logger.Error("codemode: spending an approval failed", "err", err)
		return s.approvalFailed(ctx, host, KindApprovalUnavailable, fmt.Sprintf("%s %s the user's approval, and the server could not ask the user; it was not run. %s Run the same code again in a moment.", modelList(pending), needVerb(pending), writtenNote(made)), res, made)
	}
	defer func() {
		if err := a.spent.Settle(ctx, pageSpendKey(id), []byte("{}")); err != nil {
			s.logger.Warn("codemode: storing an approval's outcome failed", "err", err)
		}
	}()
	params := &mcp.ElicitParams{
		Mode:          "url",
		Message:       fmt.Sprintf("%s asks to make %s in %s. Open the page to see exactly what and to approve or decline.", clientName(req, host), changes(len(pending)), pendingNamespaces(pending)),
		URL:           link,
		ElicitationID: id,
	}
	answer, err := s.elicit(ctx, req, params)
	if err != nil {
		_, _ = a.page.store.Answer(context.WithoutCancel(ctx), id, "decline", a.now())
		return s.unanswered(ctx, host, err, pending, res, made)
	}
	if answer.Action != "accept" {
		// The user would not open the page: close it.
		_, _ = a.page.store.Answer(ctx, id, "decline", a.now())
		return s.answered(ctx, host, answer.Action, pending, made)
	}
	got, err := s.awaitPage(ctx, id, expires)
	if ss := req.Session; ss != nil && got != "" {
		_ = ss.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: id})
	}
	switch {
	case ctx.Err() != nil:
		return s.waitEnded(ctx, host, pending, res, made)
	case err != nil:
		s.logger.Error("codemode: reading a pending approval failed", "err", err)
		return s.approvalFailed(ctx, host, KindApprovalUnavailable, fmt.Sprintf("%s %s the user's approval, and the server could not read the answer; it was not run. %s Run the same code again to ask again.", modelList(pending), needVerb(pending), writtenNote(made)), res, made)
	case got == "":
		for _, p := range pending {
			s.auditApproval(ctx, host, ApprovalDeclined, p, "expired")
		}
		return s.approvalFailed(ctx, host, KindApprovalExpired, fmt.Sprintf("the user did not answer the approval of %s within %s; it was not run. %s Do not make %s again unless the user asks for it.", modelList(pending), a.ttl, writtenNote(made), itThem(pending)), res, made)
	}
	return s.answered(ctx, host, got, pending, made)
}

// pagePoll is how often a call waiting on the page reads the store, for
// an answer given on another replica; this replica's page wakes the call
// at once.
var pagePoll = 250 * time.Millisecond

// awaitPage waits for the answer of id: "" when it expired unanswered.
func (s *Server) awaitPage(ctx context.Context, id string, expires time.Time) (string, error) {
	woken, release := s.keys.page.waiters.wait(id)
	defer release()
	t := time.NewTicker(pagePoll)
	defer t.Stop()
	for {
		p, err := s.keys.page.store.Get(ctx, id)
		if err != nil {
			return "", err
		}
		if p != nil && p.Answer != "" {
			return p.Answer, nil
		}
		if p == nil || !s.keys.now().Before(expires) {
			return "", nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-t.C:
		case <-woken:
			woken = nil // read the answer once; the ticker covers the rest
		}
	}
}

func changes(n int) string {
	if n == 1 {
		return "1 change"
	}
	return fmt.Sprintf("%d changes", n)
}

// pendingCache is the in-process PendingApprovals: right for one replica.
type pendingCache struct {
	mu     sync.Mutex
	all    map[string]*PendingApproval
	latest map[string]*PendingApproval // by Match: the newest
	swept  time.Time
}

func newPendingCache() *pendingCache {
	return &pendingCache{all: map[string]*PendingApproval{}, latest: map[string]*PendingApproval{}}
}

// Put implements PendingApprovals; about once a minute it sweeps
// approvals past their retention.
func (c *pendingCache) Put(_ context.Context, p PendingApproval) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.Created.Sub(c.swept) > time.Minute {
		c.swept = p.Created
		for id, q := range c.all {
			if p.Created.After(q.Expires.Add(PendingApprovalRetention)) {
				delete(c.all, id)
				if c.latest[q.Match] == q {
					delete(c.latest, q.Match)
				}
			}
		}
	}
	if _, ok := c.all[p.ID]; ok {
		return errors.New("codemode: approval id in use")
	}
	c.all[p.ID] = &p
	if q := c.latest[p.Match]; q == nil || !p.Created.Before(q.Created) {
		c.latest[p.Match] = &p
	}
	return nil
}

// Get implements PendingApprovals.
func (c *pendingCache) Get(_ context.Context, id string) (*PendingApproval, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.all[id]; ok {
		cp := *p
		return &cp, nil
	}
	return nil, nil
}

// Latest implements PendingApprovals.
func (c *pendingCache) Latest(_ context.Context, match string) (*PendingApproval, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.latest[match]
	if p == nil {
		return nil, nil
	}
	cp := *p
	return &cp, nil
}

// Answer implements PendingApprovals.
func (c *pendingCache) Answer(_ context.Context, id, answer string, now time.Time) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.all[id]
	if !ok || p.Answer != "" || !now.Before(p.Expires) {
		return false, nil
	}
	p.Answer = answer
	return true, nil
}
