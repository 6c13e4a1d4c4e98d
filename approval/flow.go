package approval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/sandbox"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProtocolMRTR is the first protocol revision with input-required
// results (multi round-trip requests): there the server asks the user by
// returning an input-required result whose request state carries the
// execution, sealed, instead of sending elicitation/create.
const ProtocolMRTR = "2026-07-28"

// approvalInputKey names the one input request of an input-required result.
const approvalInputKey = "approval"

// approvalChannel is how the server can ask the user.
type approvalChannel int

const (
	channelNone   approvalChannel = iota
	channelMRTR                   // 2026-07-28: input-required result with sealed request state
	channelElicit                 // earlier revisions: elicitation/create on the session
	channelURL                    // elicitation/create in URL mode, opening the approval page
)

// channel says how this tools/call can ask the user, and if it cannot,
// why (for the model). page says whether the approval page can be used;
// ctx is the call's, which says how the HTTP endpoint routed it.
func (e *execution) channel(ctx context.Context, page bool) (approvalChannel, string) {
	const noCap = "the client did not declare the elicitation capability"
	req := e.c.Request
	ss := req.Session
	if ss == nil {
		return channelNone, noCap
	}
	ip := ss.InitializeParams()
	mrtr := ip != nil && ip.ProtocolVersion >= ProtocolMRTR
	// A request served statelessly is answered in a session of its own:
	// before 2026-07-28 the client's answer to a server request would
	// arrive in another one, and its capabilities are not known here.
	if !mrtr && req.Extra != nil && req.Extra.Header != nil && ss.ID() == "" {
		return channelNone, e.c.Exec.Sessionless(ctx, ip)
	}
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return channelNone, noCap
	}
	if e := ip.Capabilities.Elicitation; e.Form == nil && e.URL != nil {
		// A client of 2026-07-28 could take a URL input request; URL
		// elicitation is used on the session only, and such a client
		// gets the link in the result instead.
		if page && !mrtr {
			return channelURL, ""
		}
		return channelNone, "the client supports only URL elicitation, not the form the approval needs"
	}
	if mrtr {
		return channelMRTR, ""
	}
	return channelElicit, ""
}

// approvalExec is an execution across its runs: what the user approved
// so far and the record the next run replays. Over 2026-07-28 it travels
// sealed in the request state (approvalState).
type approvalExec struct {
	Grants   map[string]bool  `json:"grants,omitempty"`   // functions approved for further calls, past Stop (not Options.PerCall)
	Approved []approvedCall   `json:"approved,omitempty"` // the exact calls the user approved, not yet made
	Stop     *stopCall        `json:"stop,omitempty"`     // the first call the last question showed
	Record   []recordedCall   `json:"record,omitempty"`
	Entropy  *sandbox.Entropy `json:"entropy,omitempty"`
	Round    int              `json:"round"` // questions asked
}

// grant records the user's acceptance of pending: exactly those calls,
// and unless perCall their functions' further calls, as the question
// said.
func (ex *approvalExec) grant(pending []pendingCall, perCall bool) {
	ex.Approved = append(ex.Approved, callsOf(pending)...)
	if perCall {
		return
	}
	if ex.Grants == nil {
		ex.Grants = map[string]bool{}
	}
	for _, p := range pending {
		ex.Grants[p.Fn] = true
	}
}

// execution is one tools/call on the approval flow.
type execution struct {
	s     *Service
	c     *Call
	bound *approvalState // what an approval of this call is bound to
}

// Execute runs the code of one tools/call and returns what the model
// reads: plainly when the tool binds no function that needs approval,
// else asking the user whenever a call needs approval, and resuming an
// execution the user answered (a request state over 2026-07-28, or an
// answer on the approval page). A request state sent to a tool that
// needs no approval is refused, as one bound to other code would be.
func (s *Service) Execute(ctx context.Context, c *Call) *mcp.CallToolResult {
	e := &execution{s: s, c: c}
	a := c.Policy
	if a == nil || !a.Any(c.Names) {
		if c.Request.Params.RequestState != "" {
			return e.failed(ctx, KindInvalid, approvalInvalidMessage, nil, nil)
		}
		res, err := c.Exec.Run(ctx, nil)
		return c.Exec.Finish(ctx, res, err)
	}
	e.bound = &approvalState{Tool: c.Tool, Code: c.CodeSHA256}
	if c.Principal != nil {
		e.bound.Subject, e.bound.Client = c.Principal.Subject, c.Principal.ClientID
	}
	if c.Request.Params.RequestState == "" {
		if e.pageAvailable() {
			if out, ok := e.pageResume(ctx); ok {
				return out
			}
		}
		return e.approvalLoop(ctx, &approvalExec{})
	}
	st, fp, out := e.spend(ctx)
	if out != nil {
		return out
	}
	out = e.resume(ctx, st)
	if b, err := json.Marshal(out); err == nil {
		if err := s.spent.Settle(ctx, st.ID, b); err != nil {
			s.logger.Warn("codemode: storing an approval's outcome failed", "err", err, "request", fp)
		}
	}
	return out
}

// spend opens the request state and spends it. It returns the state, or
// the result of a state refused, already spent, or retried after its
// first use settled.
func (e *execution) spend(ctx context.Context) (*approvalState, string, *mcp.CallToolResult) {
	a, req, bound := e.s, e.c.Request, e.bound
	tok := req.Params.RequestState
	st, err := a.open(tok, bound)
	if err != nil {
		e.s.logger.Warn("codemode: refused an approval state", "subject", bound.Subject, "reason", "invalid, expired or bound to other code, user or tool")
		return nil, "", e.failed(ctx, KindInvalid, approvalInvalidMessage, nil, nil)
	}
	answer, _ := json.Marshal(req.Params.InputResponses)
	sum := sha256.Sum256(append([]byte(tok+"\x00"), answer...))
	fp := hex.EncodeToString(sum[:])
	first, prior, err := a.spent.Spend(ctx, st.ID, fp, time.Unix(st.Expires, 0))
	switch {
	case err != nil:
		e.s.logger.Error("codemode: spending an approval failed", "err", err)
		return nil, fp, e.failed(ctx, KindUnavailable, "the server could not check that this approval is used once, so it ran nothing. Retry the same call in a moment.", nil, nil)
	case first:
		return st, fp, nil
	case prior != nil:
		var out mcp.CallToolResult
		if json.Unmarshal(prior, &out) == nil {
			return nil, fp, &out
		}
	}
	e.s.logger.Warn("codemode: refused an approval used twice", "subject", bound.Subject)
	return nil, fp, e.failed(ctx, KindInvalid, "this approval was already used by another call; an approval runs the code once. Nothing was run by this call. Run the code again to ask the user again.", nil, nil)
}

// resume continues the execution of st with the user's answer.
func (e *execution) resume(ctx context.Context, st *approvalState) *mcp.CallToolResult {
	answer, _ := e.c.Request.Params.InputResponses[approvalInputKey].(*mcp.ElicitResult)
	made := writesOf(st.Record)
	if answer == nil {
		return e.failed(ctx, KindInvalid, "the retry carried no answer to the approval request. "+writtenNote(made)+" Run the code again to ask the user again.", nil, made)
	}
	pend := asPending(e.c.Policy, st.Calls)
	if out := e.answered(ctx, answer.Action, pend, made); out != nil {
		return out
	}
	ex := st.approvalExec
	ex.grant(pend, e.s.perCall)
	return e.approvalLoop(ctx, &ex)
}

// approvalLoop runs the execution ex, asking the user whenever a call
// needs approval: in this tools/call over elicitation/create, or by
// returning an input-required result over 2026-07-28.
func (e *execution) approvalLoop(ctx context.Context, ex *approvalExec) *mcp.CallToolResult {
	a := e.c.Policy
	x := e.c.Exec
	ch, why := e.channel(ctx, e.pageAvailable())
	if ch == channelNone && a.fallback == Allow && ex.Round == 0 {
		res, err := x.Run(ctx, nil)
		return x.Finish(ctx, res, err)
	}
	for {
		run := newApprovalRun(a, ctx, ex, x)
		e.c.Gate.run.Store(run)
		entropy := ex.Entropy
		if entropy == nil {
			entropy = &sandbox.Entropy{}
		}
		res, err := x.Run(ctx, entropy)
		pending := run.settle(ctx, res, e.c.Timeout)
		e.c.Gate.run.Store(nil)
		if d := run.diverged; d != nil {
			ex.Record = run.canonicalRecord()
			return e.diverged(ctx, d, res, writesOf(ex.Record))
		}
		if len(pending) == 0 || ctx.Err() != nil {
			out := x.Finish(ctx, res, err)
			if ex.Round > 0 {
				e.withWrites(out, writesOf(run.canonicalRecord()), "")
			}
			return out
		}
		ex.Record, ex.Entropy, ex.Stop = run.canonicalRecord(), entropyOf(res), stopOf(pending)
		ex.Approved = run.unusedApprovals()
		made := writesOf(ex.Record)
		if ex.Entropy.Overflow {
			// The next run could not read what this one read, so it could
			// make other calls than the ones the user is asked about.
			return e.failed(ctx, KindDiverged, fmt.Sprintf("%s %s the user's approval, but before it the code read the clock or Math.random more than %d times, more than a resumed run can replay, so the user was not asked and it was not run. %s Read the clock and Math.random less (or after the call that needs approval), or make that call in an execution of its own.", modelList(pending), needVerb(pending), sandbox.MaxEntropyValues, writtenNote(made)), res, made)
		}
		ex.Round++
		if ex.Round > maxApprovalRounds {
			return e.failed(ctx, KindDiverged, fmt.Sprintf("the code asked the user %d times in one execution; %s was not run. %s Make fewer calls that need approval in one execution.", maxApprovalRounds, modelList(pending), writtenNote(made)), res, made)
		}
		if ch == channelNone && e.pageAvailable() {
			return e.pageLink(ctx, ex, pending, res, made)
		}
		if ch == channelURL {
			if out := e.pageElicit(ctx, ex, pending, res, made); out != nil {
				return out
			}
			ex.grant(pending, a.perCall)
			continue
		}
		if ch == channelNone {
			for _, p := range pending {
				e.audit(ctx, Declined, p, "unavailable")
			}
			return e.failed(ctx, KindUnavailable, fmt.Sprintf("%s %s the user's approval, but the server cannot ask the user: %s. %s Tell the user which change you want to make.", modelList(pending), needVerb(pending), why, writtenNote(made)), res, made)
		}
		params := e.elicitParams(pending, made)
		for _, p := range pending {
			e.audit(ctx, Requested, p, "")
		}
		if ch == channelMRTR {
			return e.inputRequired(ctx, ex, pending, params, res, made)
		}
		subject := ""
		if e.c.Principal != nil {
			subject = e.c.Principal.Subject
		}
		release, ok := a.waiting.take(subject)
		if !ok {
			for _, p := range pending {
				e.audit(ctx, Declined, p, "too many open questions")
			}
			return e.failed(ctx, KindUnavailable, fmt.Sprintf("%s %s the user's approval, but the user already has %d approval questions open, the most one user may have, so the user was not asked and it was not run. %s Wait until the user has answered the open questions, then run the same code again.", modelList(pending), needVerb(pending), a.waiting.max, writtenNote(made)), res, made)
		}
		answer, err := e.elicit(ctx, params)
		release()
		if err != nil {
			return e.unanswered(ctx, err, pending, res, made)
		}
		if out := e.answered(ctx, answer.Action, pending, made); out != nil {
			return out
		}
		ex.grant(pending, a.perCall)
	}
}

// inputRequired is the 2026-07-28 question: an input-required result
// whose request state carries the execution, sealed.
func (e *execution) inputRequired(ctx context.Context, ex *approvalExec, pending []pendingCall, params *mcp.ElicitParams, res *sandbox.Result, made []Write) *mcp.CallToolResult {
	a := e.s
	st := *e.bound
	st.Calls, st.approvalExec = callsOf(pending), *ex
	st.Expires = a.now().Add(a.ttl).Unix()
	tok, err := a.seal(&st)
	var big *errRecordTooLarge
	if errors.As(err, &big) {
		return e.failed(ctx, KindTooLarge, fmt.Sprintf("%s %s the user's approval, but what the execution read before it (%d KiB) is more than an approval can carry (%d KiB), so the user was not asked and it was not run. %s Read less before the call that needs approval (filter, page, or pick fields), or make that call in an execution of its own.", modelList(pending), needVerb(pending), big.size>>10, maxRecordBytes>>10, writtenNote(made)), res, made)
	}
	if err != nil {
		e.s.logger.Error("codemode: sealing an approval failed", "err", err)
		return e.failed(ctx, KindUnavailable, fmt.Sprintf("%s %s the user's approval, and asking the user failed. %s", modelList(pending), needVerb(pending), writtenNote(made)), res, made)
	}
	e.c.Exec.AuditAsked(ctx, res)
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{approvalInputKey: params},
		RequestState:  tok,
	}
}

// unanswered is the outcome of a question over elicitation/create that
// got no answer.
func (e *execution) unanswered(ctx context.Context, err error, pending []pendingCall, res *sandbox.Result, made []Write) *mcp.CallToolResult {
	if ctx.Err() != nil {
		return e.waitEnded(ctx, pending, res, made)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		for _, p := range pending {
			e.audit(ctx, Declined, p, "unanswered")
		}
		return e.failed(ctx, KindCancelled, fmt.Sprintf("the user did not answer the request to approve %s within %s; it was not run. %s Do not make %s again unless the user asks for it.", modelList(pending), e.s.ttl, writtenNote(made), itThem(pending)), res, made)
	}
	e.s.logger.Warn("codemode: asking the user for approval failed", "err", err)
	return e.failed(ctx, KindUnavailable, fmt.Sprintf("%s %s the user's approval, and asking the user failed (%s); it was not run. %s", modelList(pending), needVerb(pending), elicitFailure(err), writtenNote(made)+" Run the code again to ask the user again."), res, made)
}

// waitEnded is the outcome of a call whose request ended (the client
// cancelled it, or its deadline passed) while it waited for the user's
// answer: the calls that waited were not run, and the writes made before
// them stay. It is CANCELLED, as a script stopped by the same request
// would be, never an internal error.
func (e *execution) waitEnded(ctx context.Context, pending []pendingCall, res *sandbox.Result, made []Write) *mcp.CallToolResult {
	why := "was cancelled"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		why = "reached its deadline"
	}
	for _, p := range pending {
		e.audit(ctx, Declined, p, "request ended")
	}
	return e.failed(ctx, sandbox.KindCancelled, fmt.Sprintf("the request %s while it waited for the user's approval of %s; it was not run. %s", why, modelList(pending), writtenNote(made)), res, made)
}

// diverged is the outcome of a resumed run that made a call its record
// does not hold.
func (e *execution) diverged(ctx context.Context, d *divergence, res *sandbox.Result, made []Write) *mcp.CallToolResult {
	ns, _, _ := strings.Cut(d.Want.Fn, ".")
	got := pendingCall{approvedCall: d.Got, Tier: e.tier(d.Got.Fn)}
	e.audit(ctx, Diverged, got, "")
	return e.failed(ctx, KindDiverged, fmt.Sprintf("resuming after the user's approval, the code called %s(%s) where the approved run had called %s(%s); that call and everything after it were not run. %s Make the code's calls depend only on what it reads from %s, then run it again to ask the user again.", d.Got.Fn, d.Got.Args, d.Want.Fn, d.Want.Args, writtenNote(made), ns), res, made)
}

// elicit asks the user on the session, for at most the approval TTL,
// with the execution's worker slot free meanwhile.
func (e *execution) elicit(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	var (
		answer *mcp.ElicitResult
		err    error
	)
	ask := func() {
		ectx, cancel := context.WithTimeout(ctx, e.s.ttl)
		defer cancel()
		answer, err = e.c.Exec.Elicit(ectx, params)
		if err != nil && ectx.Err() != nil && ctx.Err() == nil {
			err = context.DeadlineExceeded
		}
	}
	ask()
	return answer, err
}

// answered handles the user's answer: nil on accept, else the result the
// model reads.
func (e *execution) answered(ctx context.Context, action string, pending []pendingCall, made []Write) *mcp.CallToolResult {
	switch action {
	case "accept":
		for _, p := range pending {
			e.audit(ctx, Granted, p, "")
		}
		return nil
	case "decline":
		for _, p := range pending {
			e.audit(ctx, Declined, p, "declined")
		}
		return e.failed(ctx, KindDeclined, fmt.Sprintf("the user declined %s; it was not run. %s Do not make %s again unless the user asks for it.", modelList(pending), writtenNote(made), itThem(pending)), nil, made)
	default: // "cancel", or anything a client invents
		for _, p := range pending {
			e.audit(ctx, Declined, p, "cancelled")
		}
		return e.failed(ctx, KindCancelled, fmt.Sprintf("the user dismissed the request to approve %s; it was not run. %s Do not make %s again unless the user asks for it.", modelList(pending), writtenNote(made), itThem(pending)), nil, made)
	}
}

// failed is the error result of an approval outcome, audited as a
// failed execution, listing the writes the execution made.
func (e *execution) failed(ctx context.Context, kind sandbox.Kind, msg string, res *sandbox.Result, made []Write) *mcp.CallToolResult {
	return e.failedLink(ctx, kind, msg, res, made, "")
}

// failedLink is failed with the approval page's link in the result.
func (e *execution) failedLink(ctx context.Context, kind sandbox.Kind, msg string, res *sandbox.Result, made []Write, link string) *mcp.CallToolResult {
	out := e.c.Exec.Fail(ctx, kind, msg, withoutApprovalStops(res, kind))
	e.withWrites(out, made, link)
	return out
}

// withWrites lists the execution's writes in a result: in
// structuredContent.writes and as a section of the text; and the link,
// when there is one, in structuredContent.approvalUrl.
func (e *execution) withWrites(out *mcp.CallToolResult, ws []Write, link string) {
	if !e.c.Exec.Annotate(out, ws, link) || len(ws) == 0 || len(out.Content) == 0 {
		return
	}
	if tc, ok := out.Content[0].(*mcp.TextContent); ok {
		tc.Text = "Writes made by this execution:\n" + writesText(ws, "- ") + "\n" + tc.Text
	}
}

// tier is the tier of fn, as the tool binds it.
func (e *execution) tier(fn string) catalog.Tier {
	t, _ := e.c.Exec.Tier(fn)
	return t
}

// audit writes one approval event for call p.
func (e *execution) audit(ctx context.Context, kind EventKind, p pendingCall, why string) {
	e.c.Exec.Audit(ctx, Event{Kind: kind, Function: p.Fn, Tier: p.Tier, Args: p.Args, Why: why})
}

func asPending(a *Policy, calls []approvedCall) []pendingCall {
	out := make([]pendingCall, len(calls))
	for i, c := range calls {
		out[i] = pendingCall{approvedCall: c, Tier: a.required[c.Fn]}
	}
	return out
}

func callsOf(pending []pendingCall) []approvedCall {
	out := make([]approvedCall, len(pending))
	for i, p := range pending {
		out[i] = p.approvedCall
	}
	return out
}
