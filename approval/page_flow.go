package approval

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/sandbox"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The approval page's part in an execution: storing the question and
// its link, resuming a re-run the user answered, and waiting for the
// answer while a URL-mode elicitation is open.

// pageAvailable reports whether this execution can use the page: it has
// one, and a principal with a subject to show it to.
func (e *execution) pageAvailable() bool {
	return e.s.page != nil && e.c.Principal != nil && e.c.Principal.Subject != ""
}

// putPage stores the approval of pending for the execution ex and
// returns its id and link.
func (e *execution) putPage(ctx context.Context, ex *approvalExec, pending []pendingCall) (id, link string, expires time.Time, err error) {
	a := e.s
	st := *e.bound
	st.Calls, st.approvalExec = callsOf(pending), *ex
	st.ClientName = clientName(e.c)
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
	p := state.PendingApproval{ID: st.ID, Match: pageMatch(e.bound), Subject: e.bound.Subject, Created: now, Expires: expires, State: plain}
	if err := a.page.store.Put(ctx, p); err != nil {
		return "", "", time.Time{}, err
	}
	return p.ID, a.page.url + p.ID, expires, nil
}

// pageFailed is the outcome when storing an approval failed.
func (e *execution) pageFailed(ctx context.Context, err error, pending []pendingCall, res *sandbox.Result, made []Write) *mcp.CallToolResult {
	var big *errRecordTooLarge
	if errors.As(err, &big) {
		return e.failed(ctx, KindTooLarge, fmt.Sprintf("%s %s the user's approval, but what the execution read before it (%d KiB) is more than an approval can keep (%d KiB), so the user was not asked and it was not run. %s Read less before the call that needs approval (filter, page, or pick fields), or make that call in an execution of its own.", modelList(pending), needVerb(pending), big.size>>10, maxRecordBytes>>10, writtenNote(made)), res, made)
	}
	var full *state.PendingLimitError
	if errors.As(err, &full) {
		e.s.logger.Warn("codemode: approval refused: too many waiting", "err", err)
		if full.Subject != "" {
			return e.failed(ctx, KindUnavailable, fmt.Sprintf("%s %s the user's approval, but the user already has %d approvals waiting for an answer, the most one user may have, so the user was not asked and it was not run. %s Ask the user to answer (approve or decline) the approval links already given, or wait until they expire (%s after they were given), then run the same code again.", modelList(pending), needVerb(pending), full.Limit, writtenNote(made), e.s.ttl), res, made)
		}
		return e.failed(ctx, KindUnavailable, fmt.Sprintf("%s %s the user's approval, but the server already holds %d approvals waiting for an answer, the most it keeps, so the user was not asked and it was not run. %s Run the same code again later.", modelList(pending), needVerb(pending), full.Limit, writtenNote(made)), res, made)
	}
	e.s.logger.Error("codemode: storing a pending approval failed", "err", err)
	return e.failed(ctx, KindUnavailable, fmt.Sprintf("%s %s the user's approval, and the server could not store the request; it was not run. %s Run the same code again in a moment.", modelList(pending), needVerb(pending), writtenNote(made)), res, made)
}

// pageLink is the first answer to a client that cannot ask: the link.
func (e *execution) pageLink(ctx context.Context, ex *approvalExec, pending []pendingCall, res *sandbox.Result, made []Write) *mcp.CallToolResult {
	_, link, _, err := e.putPage(ctx, ex, pending)
	if err != nil {
		return e.pageFailed(ctx, err, pending, res, made)
	}
	for _, p := range pending {
		e.audit(ctx, Requested, p, "page")
	}
	_, why := e.channel(ctx, false) // why the call could not ask, for the model
	return e.failedLink(ctx, KindPending, pendingText(pending, why, link, e.s.ttl, made), res, made, link)
}

// pendingText tells the model why the user could not be asked in the
// call, to pass the link on and to run the code again.
func pendingText(pending []pendingCall, why, link string, ttl time.Duration, made []Write) string {
	return fmt.Sprintf("%s %s the user's approval, and the server cannot ask the user during this call: %s. Give the user this link to approve or decline %s (valid for %s): %s %s Once the user has answered, run exactly the same code again: it continues where it stopped, without repeating writes already made.", modelList(pending), needVerb(pending), why, itThem(pending), ttl, link, writtenNote(made))
}

// pageResume answers a run of code that matches an approval of the page:
// handled is false when there is none to use, and the run is a new
// execution.
func (e *execution) pageResume(ctx context.Context) (out *mcp.CallToolResult, handled bool) {
	a := e.s
	p, err := a.page.store.Latest(ctx, pageMatch(e.bound))
	if err != nil && ctx.Err() != nil {
		// The request ended (cancelled, or past its deadline) while the
		// store was read: nothing ran, and the model reads why.
		return e.failed(ctx, sandbox.KindCancelled, "the request was cancelled before the code ran; nothing was run.", nil, nil), true
	}
	if err != nil {
		e.s.logger.Error("codemode: reading pending approvals failed", "err", err)
		return e.failed(ctx, KindUnavailable, "the server could not check whether the user answered an approval for this code, so it ran nothing. Run the same code again in a moment.", nil, nil), true
	}
	if p == nil {
		return nil, false
	}
	var st approvalState
	if err := json.Unmarshal(p.State, &st); err != nil || st.V != approvalStateVersion {
		e.s.logger.Warn("codemode: ignored an unreadable pending approval", "err", err)
		return nil, false
	}
	made := writesOf(st.Record)
	pend := asPending(e.c.Policy, st.Calls)
	now := a.now()
	link := a.page.url + p.ID
	if p.Answer == "" && now.Before(p.Expires) {
		return e.failedLink(ctx, KindPending, fmt.Sprintf("the user has not answered yet: %s %s the user's approval at %s, so nothing was run by this call. %s Ask the user to open the link and answer, then run exactly the same code again.", modelList(pend), needVerb(pend), link, writtenNote(made)), nil, made, link), true
	}
	usable := p.Answer == "accept" && now.Before(p.Expires.Add(a.ttl))
	first, prior, err := a.spent.Spend(ctx, pageSpendKey(p.ID), "page", p.Expires.Add(state.PendingApprovalRetention))
	switch {
	case err != nil:
		e.s.logger.Error("codemode: spending an approval failed", "err", err)
		return e.failed(ctx, KindUnavailable, "the server could not check that this approval is used once, so it ran nothing. Run the same code again in a moment.", nil, nil), true
	case !first && prior == nil && usable:
		return e.failed(ctx, KindInvalid, "another call is running this approved code right now; an approval runs the code once. Nothing was run by this call. Wait for that call's result.", nil, nil), true
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
			e.s.logger.Warn("codemode: storing an approval's outcome failed", "err", err)
		}
	}
	switch {
	case usable:
		e.answered(ctx, "accept", pend, made)
		ex := st.approvalExec
		ex.grant(pend, a.perCall)
		out = e.approvalLoop(ctx, &ex)
	case p.Answer == "decline":
		out = e.answered(ctx, "decline", pend, made)
	default:
		// Expired: issue a new link for the same execution.
		for _, c := range pend {
			e.audit(ctx, Declined, c, "expired")
		}
		_, link, _, err := e.putPage(ctx, &st.approvalExec, pend)
		if err != nil {
			out = e.pageFailed(ctx, err, pend, nil, made)
			break
		}
		for _, c := range pend {
			e.audit(ctx, Requested, c, "page")
		}
		out = e.failedLink(ctx, KindExpired, fmt.Sprintf("the approval of %s expired before it was used, so nothing was run by this call. %s If the user still wants %s, give them this new link (valid for %s): %s Once they have answered, run exactly the same code again.", modelList(pend), writtenNote(made), itThem(pend), a.ttl, link), nil, made, link)
	}
	settle(out)
	return out, true
}

// pageElicit asks a client with URL-mode elicitation to open the page,
// then waits for the user's answer there. It returns nil when the user
// accepted, else the result the model reads.
func (e *execution) pageElicit(ctx context.Context, ex *approvalExec, pending []pendingCall, res *sandbox.Result, made []Write) *mcp.CallToolResult {
	a := e.s
	id, link, expires, err := e.putPage(ctx, ex, pending)
	if err != nil {
		return e.pageFailed(ctx, err, pending, res, made)
	}
	for _, p := range pending {
		e.audit(ctx, Requested, p, "url")
	}
	// The approval is this call's: no re-run may use it.
	if _, _, err := a.spent.Spend(ctx, pageSpendKey(id), "url", expires.Add(state.PendingApprovalRetention)); err != nil {
		e.s.logger.Error("codemode: spending an approval failed", "err", err)
		return e.failed(ctx, KindUnavailable, fmt.Sprintf("%s %s the user's approval, and the server could not ask the user; it was not run. %s Run the same code again in a moment.", modelList(pending), needVerb(pending), writtenNote(made)), res, made)
	}
	defer func() {
		if err := a.spent.Settle(ctx, pageSpendKey(id), []byte("{}")); err != nil {
			e.s.logger.Warn("codemode: storing an approval's outcome failed", "err", err)
		}
	}()
	params := &mcp.ElicitParams{
		Mode:          "url",
		Message:       fmt.Sprintf("%s asks to make %s in %s. Open the page to see exactly what and to approve or decline.", clientName(e.c), changes(len(pending)), pendingNamespaces(pending)),
		URL:           link,
		ElicitationID: id,
	}
	answer, err := e.elicit(ctx, params)
	if err != nil {
		_, _ = a.page.store.Answer(context.WithoutCancel(ctx), id, "decline", a.now())
		return e.unanswered(ctx, err, pending, res, made)
	}
	if answer.Action != "accept" {
		// The user would not open the page: close it.
		_, _ = a.page.store.Answer(ctx, id, "decline", a.now())
		return e.answered(ctx, answer.Action, pending, made)
	}
	got, err := e.awaitPage(ctx, id, expires)
	if ss := e.c.Request.Session; ss != nil && got != "" {
		_ = ss.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: id})
	}
	switch {
	case ctx.Err() != nil:
		return e.waitEnded(ctx, pending, res, made)
	case err != nil:
		e.s.logger.Error("codemode: reading a pending approval failed", "err", err)
		return e.failed(ctx, KindUnavailable, fmt.Sprintf("%s %s the user's approval, and the server could not read the answer; it was not run. %s Run the same code again to ask again.", modelList(pending), needVerb(pending), writtenNote(made)), res, made)
	case got == "":
		for _, p := range pending {
			e.audit(ctx, Declined, p, "expired")
		}
		return e.failed(ctx, KindExpired, fmt.Sprintf("the user did not answer the approval of %s within %s; it was not run. %s Do not make %s again unless the user asks for it.", modelList(pending), a.ttl, writtenNote(made), itThem(pending)), res, made)
	}
	return e.answered(ctx, got, pending, made)
}

// DefaultPagePoll is how often, by default, a call waiting on the page
// reads the store, for an answer given on another replica; this
// replica's page wakes the call at once.
const DefaultPagePoll = 250 * time.Millisecond

// awaitPage waits for the answer of id: "" when it expired unanswered.
func (e *execution) awaitPage(ctx context.Context, id string, expires time.Time) (string, error) {
	woken, release := e.s.page.waiters.wait(id)
	defer release()
	t := time.NewTicker(e.s.page.poll)
	defer t.Stop()
	for {
		p, err := e.s.page.store.Get(ctx, id)
		if err != nil {
			return "", err
		}
		if p != nil && p.Answer != "" {
			return p.Answer, nil
		}
		if p == nil || !e.s.now().Before(expires) {
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
