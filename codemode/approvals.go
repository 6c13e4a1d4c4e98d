package codemode

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/sandbox"
)

// The driver of package approval: how the server hands an execution to
// the approval flow (runApproved), what the flow asks of the server
// (approvalDriver, an approval.Execution), and the approval page's
// handler. The flow itself, its texts, the record and replay and the
// page live in package approval.

// The approval audit events. Each names one call (Function, Tier, Args).
const (
	// ApprovalRequested: a call was validated and the user is asked.
	ApprovalRequested = AuditKind(approval.Requested)
	// ApprovalGranted: the user accepted the call.
	ApprovalGranted = AuditKind(approval.Granted)
	// ApprovalDeclined: the user declined or dismissed the request, or the
	// client could not ask (ErrorKind says which).
	ApprovalDeclined = AuditKind(approval.Declined)
	// ApprovalDiverged: a resumed run made a call that differs from the
	// record of the runs before it; it was not run.
	ApprovalDiverged = AuditKind(approval.Diverged)
)

// ApprovalHandler serves the approval page ([approval.Page]) at
// Options.Approvals.Page.URL: GET shows an approval, POST answers it. The
// host mounts it at the path of that URL, for example
//
//	mux.Handle("/approve/", srv.ApprovalHandler())
//
// Without Options.Approvals.Page it answers 404 to every request.
func (s *Server) ApprovalHandler() http.Handler {
	return s.approvals.Handler(func() *approval.Policy {
		if v := s.current(); v != nil {
			return v.approvals
		}
		return nil
	})
}

// runApproved runs the code of one tools/call: through package approval
// when the tool binds a function that needs approval or the call carries
// a request state, else directly.
func (s *Server) runApproved(ctx context.Context, req *mcp.CallToolRequest, sp *toolSpec, code string, host *execHost) *mcp.CallToolResult {
	if req.Params.RequestState == "" && !sp.v.approvals.Any(sp.names) {
		res, err := s.runSandbox(ctx, code, host, nil)
		return s.finish(ctx, host, res, err)
	}
	return s.approvals.Execute(ctx, &approval.Call{
		Request:    req,
		Tool:       sp.name,
		CodeSHA256: host.base.CodeSHA256,
		Names:      sp.names,
		Principal:  host.principal,
		Policy:     sp.v.approvals,
		Gate:       &host.gate,
		Timeout:    s.sb.Limits().Timeout,
		Exec:       &approvalDriver{s: s, host: host, req: req, code: code},
	})
}

// approvalDriver is one execution as package approval drives it.
type approvalDriver struct {
	s    *Server
	host *execHost
	req  *mcp.CallToolRequest
	code string
}

var _ approval.Execution = (*approvalDriver)(nil)

// Tier implements approval.Caller.
func (d *approvalDriver) Tier(fn string) (catalog.Tier, bool) {
	t, ok := d.host.tiers[fn]
	return t, ok
}

// DryRun implements approval.Caller: the catalog call as the execution's
// principal, and a failed one's function.called event.
func (d *approvalDriver) DryRun(ctx context.Context, fn string, args, dry json.RawMessage) error {
	h := d.host
	if h.principal != nil {
		ctx = catalog.WithPrincipal(ctx, *h.principal)
	}
	start := time.Now()
	_, err := d.s.callCatalog(ctx, fn, dry)
	if err != nil {
		ev := h.base
		ev.Kind, ev.Time, ev.Function, ev.Tier = FunctionCalled, start, fn, h.tiers[fn].String()
		ev.Args = auditArgs(d.s.opts.Audit.Args, args)
		ev.Duration = time.Since(start)
		ev.ErrorKind = catalog.CodeOf(err)
		d.s.audit.Audit(ctx, ev)
	}
	return err
}

// Run implements approval.Execution.
func (d *approvalDriver) Run(ctx context.Context, entropy *sandbox.Entropy) (*sandbox.Result, error) {
	return d.s.runSandbox(ctx, d.code, d.host, entropy)
}

// Finish implements approval.Execution.
func (d *approvalDriver) Finish(ctx context.Context, res *sandbox.Result, err error) *mcp.CallToolResult {
	return d.s.finish(ctx, d.host, res, err)
}

// Fail implements approval.Execution.
func (d *approvalDriver) Fail(ctx context.Context, kind sandbox.Kind, msg string, res *sandbox.Result) *mcp.CallToolResult {
	d.auditFailed(ctx, kind, res)
	return errorResult(newExecError(kind, msg), res)
}

// AuditAsked implements approval.Execution.
func (d *approvalDriver) AuditAsked(ctx context.Context, res *sandbox.Result) {
	d.auditFailed(ctx, approval.KindRequired, res)
}

// auditFailed audits the execution as failed with kind.
func (d *approvalDriver) auditFailed(ctx context.Context, kind sandbox.Kind, res *sandbox.Result) {
	ev := d.host.base
	ev.Kind, ev.Time, ev.ErrorKind = ExecutionFailed, time.Now(), string(kind)
	if res != nil {
		ev.Calls = len(res.Calls)
	}
	d.s.audit.Audit(ctx, ev)
}

// Annotate implements approval.Execution.
func (d *approvalDriver) Annotate(out *mcp.CallToolResult, ws []approval.Write, url string) bool {
	st, ok := out.StructuredContent.(structured)
	if !ok {
		return false
	}
	st.Writes = ws
	if st.Writes == nil {
		st.Writes = []approval.Write{}
	}
	if url != "" {
		st.ApprovalURL = url
	}
	out.StructuredContent = st
	return true
}

// Audit implements approval.Execution.
func (d *approvalDriver) Audit(ctx context.Context, e approval.Event) {
	ev := d.host.base
	ev.Kind, ev.Time = AuditKind(e.Kind), time.Now()
	ev.Function = e.Function
	ev.Tier = e.Tier.String()
	ev.Args = auditArgs(d.s.opts.Audit.Args, e.Args)
	ev.ErrorKind = e.Why
	d.s.audit.Audit(ctx, ev)
}

// Elicit implements approval.Execution, observed as an approval wait.
func (d *approvalDriver) Elicit(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	ctx, end := d.s.tel.obs.Approval(ctx)
	answer, err := d.req.Session.Elicit(ctx, params)
	action := "error" // the answer's name for the observer
	if err == nil {
		action = "none"
		if answer != nil {
			action = answer.Action
		}
	}
	end(action)
	return answer, err
}

// Sessionless implements approval.Execution.
func (d *approvalDriver) Sessionless(ctx context.Context, ip *mcp.InitializeParams) string {
	return sessionlessReason(ctx, ip)
}

// approvalFuncs lists fns as approval.Service.Policy reads them.
func approvalFuncs(fns []boundFunc) []approval.Func {
	out := make([]approval.Func, len(fns))
	for i, f := range fns {
		out[i] = approval.Func{Name: f.qualified(), Tier: f.Tier, Approval: f.Approval}
	}
	return out
}
