package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/brakinglab/codemode-go/sandbox"
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
)

// channelFor says how this tools/call can ask the user, and if it cannot,
// why (for the model).
func channelFor(req *mcp.CallToolRequest) (approvalChannel, string) {
	const noCap = "the client did not declare the elicitation capability"
	ss := req.Session
	if ss == nil {
		return channelNone, noCap
	}
	ip := ss.InitializeParams()
	mrtr := ip != nil && ip.ProtocolVersion >= protocolMRTR
	// A stateless HTTP endpoint answers each POST in a session of its own:
	// before 2026-07-28 the client's answer to a server request would
	// arrive in another one, and its capabilities are not known here.
	if !mrtr && req.Extra != nil && req.Extra.Header != nil && ss.ID() == "" {
		rev := "revisions before " + protocolMRTR
		if ip != nil && ip.ProtocolVersion != "" {
			rev = "revision " + ip.ProtocolVersion
		}
		return channelNone, fmt.Sprintf("on protocol %s this server (stateless HTTP) cannot send the client a request during a call; revision %s can", rev, protocolMRTR)
	}
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return channelNone, noCap
	}
	if e := ip.Capabilities.Elicitation; e.Form == nil && e.URL != nil {
		return channelNone, "the client supports only URL elicitation, not the form the approval needs"
	}
	if mrtr {
		return channelMRTR, ""
	}
	return channelElicit, ""
}

// runApproved runs the code, asking the user to approve the calls that
// need it. It returns the sandbox's outcome of the last run, or, when the
// outcome is about approval (an input-required result, a refusal, a
// decline), that result instead.
func (s *Server) runApproved(ctx context.Context, req *mcp.CallToolRequest, sp *toolSpec, code string, host *execHost) (*sandbox.Result, *mcp.CallToolResult, error) {
	a := s.approvals
	if a == nil || !sp.needsApproval(a) {
		if req.Params.RequestState != "" {
			return nil, s.approvalFailed(ctx, host, "APPROVAL_INVALID", approvalInvalidMessage, nil), nil
		}
		res, err := s.runSandbox(ctx, code, host)
		return res, nil, err
	}
	bound := &approvalState{Tool: sp.name, Code: host.base.CodeSHA256}
	if host.principal != nil {
		bound.Subject, bound.Client = host.principal.Subject, host.principal.ClientID
	}

	var approved []approvedCall
	round := 0
	if tok := req.Params.RequestState; tok != "" {
		st, err := a.open(tok, bound)
		if err != nil {
			s.logger.Warn("codemode: refused an approval state", "subject", bound.Subject, "reason", "invalid, expired or bound to other code, user or tool")
			return nil, s.approvalFailed(ctx, host, "APPROVAL_INVALID", approvalInvalidMessage, nil), nil
		}
		answer, _ := req.Params.InputResponses[approvalInputKey].(*mcp.ElicitResult)
		if answer == nil {
			return nil, s.approvalFailed(ctx, host, "APPROVAL_INVALID", "the retry carried no answer to the approval request; nothing was written. Run the code again to ask the user again.", nil), nil
		}
		pend := asPending(a, st.Calls)
		if out := s.answered(ctx, host, answer.Action, pend); out != nil {
			return nil, out, nil
		}
		approved, round = st.Calls, st.Round
	}

	ch, why := channelFor(req)
	if ch == channelNone && a.fallback == ApprovalAllow {
		res, err := s.runSandbox(ctx, code, host)
		return res, nil, err
	}
	for {
		run := newApprovalRun(a, ctx, approved)
		host.ap.Store(run)
		res, err := s.runSandbox(ctx, code, host)
		pending := run.settle(ctx, res, s.sb.Limits().Timeout)
		host.ap.Store(nil)
		if len(pending) == 0 || ctx.Err() != nil {
			return res, nil, err
		}
		for _, p := range pending {
			if p.Diverged {
				s.auditApproval(ctx, host, ApprovalDiverged, p, "")
			}
		}
		round++
		if round > maxApprovalRounds {
			return res, s.approvalFailed(ctx, host, "APPROVAL_DIVERGED", fmt.Sprintf("the code kept making calls that differ from what the user approved (%d approvals asked for); the calls not approved were not run. Make the writes depend on data that does not change between runs, or make them in a separate execution.", maxApprovalRounds), res), nil
		}
		if ch == channelNone {
			for _, p := range pending {
				s.auditApproval(ctx, host, ApprovalDeclined, p, "unavailable")
			}
			return res, s.approvalFailed(ctx, host, "APPROVAL_UNAVAILABLE", fmt.Sprintf("%s %s the user's approval, but the server cannot ask the user: %s. Nothing was written. Tell the user which change you want to make.", modelList(s.cat.Namespace(), pending), needVerb(pending), why), res), nil
		}
		params := s.elicitParams(req, host, pending)
		for _, p := range pending {
			s.auditApproval(ctx, host, ApprovalRequested, p, "")
		}
		if ch == channelMRTR {
			st := *bound
			st.Calls, st.Round = callsOf(pending), round
			st.Expires = a.now().Add(a.ttl).Unix()
			tok, err := a.seal(&st)
			if err != nil {
				return res, nil, fmt.Errorf("sealing an approval: %w", err)
			}
			ev := host.base
			ev.Kind, ev.Time, ev.ErrorKind = ExecutionFailed, time.Now(), "APPROVAL_REQUIRED"
			if res != nil {
				ev.Calls = len(res.Calls)
			}
			s.audit.Audit(ctx, ev)
			return nil, &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{approvalInputKey: params},
				RequestState:  tok,
			}, nil
		}
		answer, err := s.elicit(ctx, host, req, params)
		if err != nil {
			if ctx.Err() != nil {
				return res, nil, ctx.Err()
			}
			if errors.Is(err, context.DeadlineExceeded) {
				for _, p := range pending {
					s.auditApproval(ctx, host, ApprovalDeclined, p, "unanswered")
				}
				return res, s.approvalFailed(ctx, host, "APPROVAL_CANCELLED", fmt.Sprintf("the user did not answer the request to approve %s within %s; nothing was written. Do not make %s again unless the user asks for it.", modelList(s.cat.Namespace(), pending), a.ttl, itThem(pending)), res), nil
			}
			s.logger.Warn("codemode: asking the user for approval failed", "err", err)
			return res, s.approvalFailed(ctx, host, "APPROVAL_UNAVAILABLE", fmt.Sprintf("%s %s the user's approval, and asking the user failed. Nothing was written.", modelList(s.cat.Namespace(), pending), needVerb(pending)), res), nil
		}
		if out := s.answered(ctx, host, answer.Action, pending); out != nil {
			return nil, out, nil
		}
		approved = callsOf(pending)
	}
}

// elicit asks the user on the session, for at most the approval TTL,
// with the execution's worker slot free meanwhile.
func (s *Server) elicit(ctx context.Context, host *execHost, req *mcp.CallToolRequest, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	var (
		answer *mcp.ElicitResult
		err    error
	)
	ask := func() {
		ectx, cancel := context.WithTimeout(ctx, s.approvals.ttl)
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
func (s *Server) answered(ctx context.Context, host *execHost, action string, pending []pendingCall) *mcp.CallToolResult {
	ns := s.cat.Namespace()
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
		return s.approvalFailed(ctx, host, "APPROVAL_DECLINED", fmt.Sprintf("the user declined %s; nothing was written. Do not make %s again unless the user asks for it.", modelList(ns, pending), itThem(pending)), nil)
	default: // "cancel", or anything a client invents
		for _, p := range pending {
			s.auditApproval(ctx, host, ApprovalDeclined, p, "cancelled")
		}
		return s.approvalFailed(ctx, host, "APPROVAL_CANCELLED", fmt.Sprintf("the user dismissed the request to approve %s; nothing was written. Do not make %s again unless the user asks for it.", modelList(ns, pending), itThem(pending)), nil)
	}
}

// approvalFailed is the error result of an approval outcome, audited as
// a failed execution.
func (s *Server) approvalFailed(ctx context.Context, host *execHost, kind, msg string, res *sandbox.Result) *mcp.CallToolResult {
	ev := host.base
	ev.Kind, ev.Time, ev.ErrorKind = ExecutionFailed, time.Now(), kind
	if res != nil {
		ev.Calls = len(res.Calls)
	}
	s.audit.Audit(ctx, ev)
	return errorResult(newExecError(sandbox.Kind(kind), msg), res)
}

// auditApproval writes one approval event for call p.
func (s *Server) auditApproval(ctx context.Context, host *execHost, kind AuditKind, p pendingCall, why string) {
	ev := host.base
	ev.Kind, ev.Time = kind, time.Now()
	ev.Function = s.cat.Namespace() + "." + p.Fn
	ev.Tier = p.Tier.String()
	ev.Args = auditArgs(s.opts.AuditArgs, p.Args)
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

// elicitParams is the form the user answers: a message naming who asks
// and every call with its validated arguments, and no fields to fill in.
func (s *Server) elicitParams(req *mcp.CallToolRequest, host *execHost, pending []pendingCall) *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Mode:            "form",
		Message:         approvalMessage(clientName(req, host), s.cat.Namespace(), pending),
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	}
}

// clientName is who asks: the client's title or name from its
// implementation info, and the OAuth client id when there is one.
func clientName(req *mcp.CallToolRequest, host *execHost) string {
	name := ""
	if req.Session != nil {
		if ip := req.Session.InitializeParams(); ip != nil && ip.ClientInfo != nil {
			name = ip.ClientInfo.Title
			if name == "" {
				name = ip.ClientInfo.Name
			}
		}
	}
	var id string
	if host.principal != nil {
		id = host.principal.ClientID
	}
	switch {
	case name == "" && id == "":
		return "The AI client"
	case name == "":
		return "The AI client " + quoteShort(id)
	case id == "" || id == name:
		return quoteShort(name)
	}
	return quoteShort(name) + " (client " + quoteShort(id) + ")"
}

// quoteShort keeps a client-chosen name to one short line.
func quoteShort(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return s
}

// approvalMessage is the exact text the user reads, for example:
//
//	Claude asks to make 2 changes in brakinglab:
//
//	1. brakinglab.deleteRace (MUTATING)
//	   raceId: 12
//	2. brakinglab.deleteRace (MUTATING)
//	   raceId: 14
//
//	Nothing has been changed yet. Accept to make exactly these changes; decline to make none.
func approvalMessage(who, ns string, pending []pendingCall) string {
	var b strings.Builder
	if len(pending) == 1 {
		fmt.Fprintf(&b, "%s asks to make 1 change in %s:\n\n", who, ns)
	} else {
		fmt.Fprintf(&b, "%s asks to make %d changes in %s:\n\n", who, len(pending), ns)
	}
	for i, p := range pending {
		fmt.Fprintf(&b, "%d. %s.%s (%s)\n", i+1, ns, p.Fn, p.Tier)
		lines := readableArgs(p.Args)
		if len(lines) == 0 {
			b.WriteString("   (no arguments)\n")
		}
		for _, l := range lines {
			b.WriteString("   " + l + "\n")
		}
	}
	if len(pending) == 1 {
		b.WriteString("\nNothing has been changed yet. Accept to make exactly this change; decline to make none.")
	} else {
		b.WriteString("\nNothing has been changed yet. Accept to make exactly these changes; decline to make none.")
	}
	return b.String()
}

// readableArgs renders canonical arguments one member a line: key: value,
// with values as compact JSON.
func readableArgs(args json.RawMessage) []string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return []string{string(args)}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k+": "+string(obj[k]))
	}
	return out
}

// modelList names the calls for the model: ns.fn({"canonical":"args"}).
func modelList(ns string, pending []pendingCall) string {
	parts := make([]string, len(pending))
	for i, p := range pending {
		parts[i] = ns + "." + p.Fn + "(" + string(p.Args) + ")"
	}
	switch len(parts) {
	case 1:
		return parts[0]
	case 2:
		return parts[0] + " and " + parts[1]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func needVerb(pending []pendingCall) string {
	if len(pending) == 1 {
		return "needs"
	}
	return "need"
}

func itThem(pending []pendingCall) string {
	if len(pending) == 1 {
		return "this call"
	}
	return "these calls"
}
