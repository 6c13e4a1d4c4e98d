package codemode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/brakinglab/codemode-go/sandbox"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// approvalInputKey names the one input request of an input-required result.
const approvalInputKey = "approval"

// protocolMRTR is the first protocol revision with input-required results.
const protocolMRTR = "2026-07-28"

// approvalChannel is how the server can ask the user.
type approvalChannel int

const (
	channelNone   approvalChannel = iota
	channelMRTR                   // 2026-07-28: input-required result with sealed request state
	channelElicit                 // earlier revisions: elicitation/create on the session
	channelURL                    // elicitation/create in URL mode, opening the approval page
)

// channelFor says how this tools/call can ask the user, and if it cannot,
// why (for the model). page says whether the approval page can be used;
// ctx is the call's, which says how the HTTP endpoint routed it.
func channelFor(ctx context.Context, req *mcp.CallToolRequest, page bool) (approvalChannel, string) {
	const noCap = "the client did not declare the elicitation capability"
	ss := req.Session
	if ss == nil {
		return channelNone, noCap
	}
	ip := ss.InitializeParams()
	mrtr := ip != nil && ip.ProtocolVersion >= protocolMRTR
	// A request served statelessly is answered in a session of its own:
	// before 2026-07-28 the client's answer to a server request would
	// arrive in another one, and its capabilities are not known here.
	if !mrtr && req.Extra != nil && req.Extra.Header != nil && ss.ID() == "" {
		return channelNone, sessionlessReason(ctx, ip)
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
	Grants   map[string]bool  `json:"grants,omitempty"`   // functions approved for further calls, past Stop (not ApprovalOptions.PerCall)
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

// runApproved runs the code of a tool that binds a function needing
// approval (or carries a request state) and returns what the model reads.
func (s *Server) runApproved(ctx context.Context, req *mcp.CallToolRequest, sp *toolSpec, code string, host *execHost) *mcp.CallToolResult {
	a := sp.v.approvals
	if a == nil || !sp.needsApproval(a) {
		if req.Params.RequestState != "" {
			return s.approvalFailed(ctx, host, KindApprovalInvalid, approvalInvalidMessage, nil, nil)
		}
		res, err := s.runSandbox(ctx, code, host, nil)
		return s.finish(ctx, host, res, err)
	}
	bound := &approvalState{Tool: sp.name, Code: host.base.CodeSHA256}
	if host.principal != nil {
		bound.Subject, bound.Client = host.principal.Subject, host.principal.ClientID
	}
	if req.Params.RequestState == "" {
		if s.pageAvailable(host) {
			if out, ok := s.pageResume(ctx, req, code, host, bound); ok {
				return out
			}
		}
		return s.approvalLoop(ctx, req, code, host, bound, &approvalExec{})
	}
	st, fp, out := s.spend(ctx, req, host, bound)
	if out != nil {
		return out
	}
	out = s.resume(ctx, req, code, host, bound, st)
	if b, err := json.Marshal(out); err == nil {
		if err := a.spent.Settle(ctx, st.ID, b); err != nil {
			s.logger.Warn("codemode: storing an approval's outcome failed", "err", err, "request", fp)
		}
	}
	return out
}

// spend opens the request state and spends it. It returns the state, or
// the result of a state refused, already spent, or retried after its
// first use settled.
func (s *Server) spend(ctx context.Context, req *mcp.CallToolRequest, host *execHost, bound *approvalState) (*approvalState, string, *mcp.CallToolResult) {
	a := s.keys
	tok := req.Params.RequestState
	st, err := a.open(tok, bound)
	if err != nil {
		s.logger.Warn("codemode: refused an approval state", "subject", bound.Subject, "reason", "invalid, expired or bound to other code, user or tool")
		return nil, "", s.approvalFailed(ctx, host, KindApprovalInvalid, approvalInvalidMessage, nil, nil)
	}
	answer, _ := json.Marshal(req.Params.InputResponses)
	sum := sha256.Sum256(append([]byte(tok+"\x00"), answer...))
	fp := hex.EncodeToString(sum[:])
	first, prior, err := a.spent.Spend(ctx, st.ID, fp, time.Unix(st.Expires, 0))
	switch {
	case err != nil:
		s.logger.Error("codemode: spending an approval failed", "err", err)
		return nil, fp, s.approvalFailed(ctx, host, KindApprovalUnavailable, "the server could not check that this approval is used once, so it ran nothing. Retry the same call in a moment.", nil, nil)
	case first:
		return st, fp, nil
	case prior != nil:
		var out mcp.CallToolResult
		if json.Unmarshal(prior, &out) == nil {
			return nil, fp, &out
		}
	}
	s.logger.Warn("codemode: refused an approval used twice", "subject", bound.Subject)
	return nil, fp, s.approvalFailed(ctx, host, KindApprovalInvalid, "this approval was already used by another call; an approval runs the code once. Nothing was run by this call. Run the code again to ask the user again.", nil, nil)
}

// resume continues the execution of st with the user's answer.
func (s *Server) resume(ctx context.Context, req *mcp.CallToolRequest, code string, host *execHost, bound *approvalState, st *approvalState) *mcp.CallToolResult {
	answer, _ := req.Params.InputResponses[approvalInputKey].(*mcp.ElicitResult)
	made := writesOf(st.Record)
	if answer == nil {
		return s.approvalFailed(ctx, host, KindApprovalInvalid, "the retry carried no answer to the approval request. "+writtenNote(made)+" Run the code again to ask the user again.", nil, made)
	}
	pend := asPending(host.spec.v.approvals, st.Calls)
	if out := s.answered(ctx, host, answer.Action, pend, made); out != nil {
		return out
	}
	ex := st.approvalExec
	ex.grant(pend, s.keys.perCall)
	return s.approvalLoop(ctx, req, code, host, bound, &ex)
}

// approvalLoop runs the execution ex, asking the user whenever a call
// needs approval: in this tools/call over elicitation/create, or by
// returning an input-required result over 2026-07-28.
func (s *Server) approvalLoop(ctx context.Context, req *mcp.CallToolRequest, code string, host *execHost, bound *approvalState, ex *approvalExec) *mcp.CallToolResult {
	a := host.spec.v.approvals
	ch, why := channelFor(ctx, req, s.pageAvailable(host))
	if ch == channelNone && a.fallback == ApprovalAllow && ex.Round == 0 {
		res, err := s.runSandbox(ctx, code, host, nil)
		return s.finish(ctx, host, res, err)
	}
	for {
		run := newApprovalRun(a, ctx, ex)
		host.ap.Store(run)
		entropy := ex.Entropy
		if entropy == nil {
			entropy = &sandbox.Entropy{}
		}
		res, err := s.runSandbox(ctx, code, host, entropy)
		pending := run.settle(ctx, res, s.sb.Limits().Timeout)
		host.ap.Store(nil)
		if d := run.diverged; d != nil {
			ex.Record = run.canonicalRecord()
			return s.diverged(ctx, host, d, res, writesOf(ex.Record))
		}
		if len(pending) == 0 || ctx.Err() != nil {
			out := s.finish(ctx, host, res, err)
			if ex.Round > 0 {
				withWrites(out, writesOf(run.canonicalRecord()))
			}
			return out
		}
		ex.Record, ex.Entropy, ex.Stop = run.canonicalRecord(), entropyOf(res), stopOf(pending)
		ex.Approved = run.unusedApprovals()
		made := writesOf(ex.Record)
		if ex.Entropy.Overflow {
			// The next run could not read what this one read, so it could
			// make other calls than the ones the user is asked about.
			return s.approvalFailed(ctx, host, KindApprovalDiverged, fmt.Sprintf("%s %s the user's approval, but before it the code read the clock or Math.random more than %d times, more than a resumed run can replay, so the user was not asked and it was not run. %s Read the clock and Math.random less (or after the call that needs approval), or make that call in an execution of its own.", modelList(pending), needVerb(pending), sandbox.MaxEntropyValues, writtenNote(made)), res, made)
		}
		ex.Round++
		if ex.Round > maxApprovalRounds {
			return s.approvalFailed(ctx, host, KindApprovalDiverged, fmt.Sprintf("the code asked the user %d times in one execution; %s was not run. %s Make fewer calls that need approval in one execution.", maxApprovalRounds, modelList(pending), writtenNote(made)), res, made)
		}
		if ch == channelNone && s.pageAvailable(host) {
			return s.pageLink(ctx, req, host, bound, ex, pending, res, made)
		}
		if ch == channelURL {
			if out := s.pageElicit(ctx, req, host, bound, ex, pending, res, made); out != nil {
				return out
			}
			ex.grant(pending, a.perCall)
			continue
		}
		if ch == channelNone {
			for _, p := range pending {
				s.auditApproval(ctx, host, ApprovalDeclined, p, "unavailable")
			}
			return s.approvalFailed(ctx, host, KindApprovalUnavailable, fmt.Sprintf("%s %s the user's approval, but the server cannot ask the user: %s. %s Tell the user which change you want to make.", modelList(pending), needVerb(pending), why, writtenNote(made)), res, made)
		}
		params := s.elicitParams(req, host, pending, made)
		for _, p := range pending {
			s.auditApproval(ctx, host, ApprovalRequested, p, "")
		}
		if ch == channelMRTR {
			return s.inputRequired(ctx, host, bound, ex, pending, params, res, made)
		}
		answer, err := s.elicit(ctx, req, params)
		if err != nil {
			return s.unanswered(ctx, host, err, pending, res, made)
		}
		if out := s.answered(ctx, host, answer.Action, pending, made); out != nil {
			return out
		}
		ex.grant(pending, a.perCall)
	}
}

// inputRequired is the 2026-07-28 question: an input-required result
// whose request state carries the execution, sealed.
func (s *Server) inputRequired(ctx context.Context, host *execHost, bound *approvalState, ex *approvalExec, pending []pendingCall, params *mcp.ElicitParams, res *sandbox.Result, made []write) *mcp.CallToolResult {
	a := s.keys
	st := *bound
	st.Calls, st.approvalExec = callsOf(pending), *ex
	st.Expires = a.now().Add(a.ttl).Unix()
	tok, err := a.seal(&st)
	var big *errRecordTooLarge
	if errors.As(err, &big) {
		return s.approvalFailed(ctx, host, KindApprovalTooLarge, fmt.Sprintf("%s %s the user's approval, but what the execution read before it (%d KiB) is more than an approval can carry (%d KiB), so the user was not asked and it was not run. %s Read less before the call that needs approval (filter, page, or pick fields), or make that call in an execution of its own.", modelList(pending), needVerb(pending), big.size>>10, maxRecordBytes>>10, writtenNote(made)), res, made)
	}
	if err != nil {
		s.logger.Error("codemode: sealing an approval failed", "err", err)
		return s.approvalFailed(ctx, host, KindApprovalUnavailable, fmt.Sprintf("%s %s the user's approval, and asking the user failed. %s", modelList(pending), needVerb(pending), writtenNote(made)), res, made)
	}
	ev := host.base
	ev.Kind, ev.Time, ev.ErrorKind = ExecutionFailed, time.Now(), string(KindApprovalRequired)
	if res != nil {
		ev.Calls = len(res.Calls)
	}
	s.audit.Audit(ctx, ev)
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{approvalInputKey: params},
		RequestState:  tok,
	}
}

// unanswered is the outcome of a question over elicitation/create that
// got no answer.
func (s *Server) unanswered(ctx context.Context, host *execHost, err error, pending []pendingCall, res *sandbox.Result, made []write) *mcp.CallToolResult {
	if ctx.Err() != nil {
		return s.waitEnded(ctx, host, pending, res, made)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		for _, p := range pending {
			s.auditApproval(ctx, host, ApprovalDeclined, p, "unanswered")
		}
		return s.approvalFailed(ctx, host, KindApprovalCancelled, fmt.Sprintf("the user did not answer the request to approve %s within %s; it was not run. %s Do not make %s again unless the user asks for it.", modelList(pending), s.keys.ttl, writtenNote(made), itThem(pending)), res, made)
	}
	s.logger.Warn("codemode: asking the user for approval failed", "err", err)
	return s.approvalFailed(ctx, host, KindApprovalUnavailable, fmt.Sprintf("%s %s the user's approval, and asking the user failed (%s); it was not run. %s", modelList(pending), needVerb(pending), elicitFailure(err), writtenNote(made)+" Run the code again to ask the user again."), res, made)
}

// waitEnded is the outcome of a call whose request ended (the client
// cancelled it, or its deadline passed) while it waited for the user's
// answer: the calls that waited were not run, and the writes made before
// them stay. It is CANCELLED, as a script stopped by the same request
// would be, never an internal error.
func (s *Server) waitEnded(ctx context.Context, host *execHost, pending []pendingCall, res *sandbox.Result, made []write) *mcp.CallToolResult {
	why := "was cancelled"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		why = "reached its deadline"
	}
	for _, p := range pending {
		s.auditApproval(ctx, host, ApprovalDeclined, p, "request ended")
	}
	return s.approvalFailed(ctx, host, sandbox.KindCancelled, fmt.Sprintf("the request %s while it waited for the user's approval of %s; it was not run. %s", why, modelList(pending), writtenNote(made)), res, made)
}

// diverged is the outcome of a resumed run that made a call its record
// does not hold.
func (s *Server) diverged(ctx context.Context, host *execHost, d *divergence, res *sandbox.Result, made []write) *mcp.CallToolResult {
	ns, _, _ := strings.Cut(d.Want.Fn, ".")
	got := pendingCall{approvedCall: d.Got, Tier: host.tiers[d.Got.Fn]}
	s.auditApproval(ctx, host, ApprovalDiverged, got, "")
	return s.approvalFailed(ctx, host, KindApprovalDiverged, fmt.Sprintf("resuming after the user's approval, the code called %s(%s) where the approved run had called %s(%s); that call and everything after it were not run. %s Make the code's calls depend only on what it reads from %s, then run it again to ask the user again.", d.Got.Fn, d.Got.Args, d.Want.Fn, d.Want.Args, writtenNote(made), ns), res, made)
}

// elicit asks the user on the session, for at most the approval TTL,
// with the execution's worker slot free meanwhile.
func (s *Server) elicit(ctx context.Context, req *mcp.CallToolRequest, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	var (
		answer *mcp.ElicitResult
		err    error
	)
	ask := func() {
		ectx, cancel := context.WithTimeout(ctx, s.keys.ttl)
		defer cancel()
		ectx, end := s.tel.startApproval(ectx)
		defer func() { end(elicitAction(answer, err)) }()
		answer, err = req.Session.Elicit(ectx, params)
		if err != nil && ectx.Err() != nil && ctx.Err() == nil {
			err = context.DeadlineExceeded
		}
	}
	ask()
	return answer, err
}

// needsApproval reports whether the tool binds a function that needs approval.
func (sp *toolSpec) needsApproval(a *approver) bool {
	for _, n := range sp.names {
		if _, ok := a.required[n]; ok {
			return true
		}
	}
	return false
}

// answered handles the user's answer: nil on accept, else the result the
// model reads.
func (s *Server) answered(ctx context.Context, host *execHost, action string, pending []pendingCall, made []write) *mcp.CallToolResult {
	switch action {
	case "accept":
		for _, p := range pending {
			s.auditApproval(ctx, host, ApprovalGranted, p, "")
		}
		return nil
	case "decline":
		for _, p := range pending {
			s.auditApproval(ctx, host, ApprovalDeclined, p, "declined")
		}
		return s.approvalFailed(ctx, host, KindApprovalDeclined, fmt.Sprintf("the user declined %s; it was not run. %s Do not make %s again unless the user asks for it.", modelList(pending), writtenNote(made), itThem(pending)), nil, made)
	default: // "cancel", or anything a client invents
		for _, p := range pending {
			s.auditApproval(ctx, host, ApprovalDeclined, p, "cancelled")
		}
		return s.approvalFailed(ctx, host, KindApprovalCancelled, fmt.Sprintf("the user dismissed the request to approve %s; it was not run. %s Do not make %s again unless the user asks for it.", modelList(pending), writtenNote(made), itThem(pending)), nil, made)
	}
}

// approvalFailed is the error result of an approval outcome, audited as
// a failed execution, listing the writes the execution made.
func (s *Server) approvalFailed(ctx context.Context, host *execHost, kind sandbox.Kind, msg string, res *sandbox.Result, made []write) *mcp.CallToolResult {
	ev := host.base
	ev.Kind, ev.Time, ev.ErrorKind = ExecutionFailed, time.Now(), string(kind)
	if res != nil {
		ev.Calls = len(res.Calls)
	}
	s.audit.Audit(ctx, ev)
	out := errorResult(newExecError(kind, msg), withoutApprovalStops(res, kind))
	withWrites(out, made)
	return out
}

// approvalNotRun starts the error of a call that an approval outcome
// stopped (withoutApprovalStops).
const approvalNotRun = "not run: "

// withoutApprovalStops returns res with the calls that the approval
// stopped described by the execution's outcome, kind. Their own errors
// say the execution resumes once the user answers, and the warnings about
// them say to fix the error and run again: advice the model cannot follow
// once the outcome is final (a client that cannot ask never answers).
func withoutApprovalStops(res *sandbox.Result, kind sandbox.Kind) *sandbox.Result {
	if res == nil {
		return nil
	}
	stopped := func(msg string) bool {
		return strings.Contains(msg, errApprovalPendingText) || strings.Contains(msg, errApprovalStopped{}.Error())
	}
	note := approvalNotRun + "the execution ended with " + string(kind)
	if kind == KindApprovalPending {
		note = approvalNotRun + "it waits for the user's answer on the approval page"
	}
	out := *res
	out.Calls = slices.Clone(res.Calls)
	for i, c := range out.Calls {
		if stopped(c.Error) {
			out.Calls[i].Error = note
		}
	}
	out.Warnings = slices.DeleteFunc(slices.Clone(res.Warnings), func(w sandbox.Warning) bool {
		return w.Kind == sandbox.WarningUnawaited && stopped(w.Message)
	})
	return &out
}

// auditApproval writes one approval event for call p.
func (s *Server) auditApproval(ctx context.Context, host *execHost, kind AuditKind, p pendingCall, why string) {
	ev := host.base
	ev.Kind, ev.Time = kind, time.Now()
	ev.Function = p.Fn
	ev.Tier = p.Tier.String()
	ev.Args = auditArgs(s.opts.Audit.Args, p.Args)
	ev.ErrorKind = why
	s.audit.Audit(ctx, ev)
}

func asPending(a *approver, calls []approvedCall) []pendingCall {
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

// elicitFailure says briefly why asking failed, for the model.
func elicitFailure(err error) string {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return "the answer was an error: " + clip(je.Message, 300)
	}
	return clip(err.Error(), 300)
}

// clip keeps a message to one line of at most n runes.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}
