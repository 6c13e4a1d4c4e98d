package codemode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/chartrun"
	"github.com/brakinglab/codemode-go/internal/freecalls"
	"github.com/brakinglab/codemode-go/internal/progress"
	"github.com/brakinglab/codemode-go/mcpsource"
	"github.com/brakinglab/codemode-go/sandbox"
)

// inputSchema is the one argument of the code tools.
var inputSchema = json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","description":"TypeScript: the body of an async function. Use await for every call and end with return <value>."}},"required":["code"],"additionalProperties":false}`)

// toolInput is what tools/call carries.
type toolInput struct {
	Code *string `json:"code"`
}

// addTool registers the code tool sp on srv. The handler serves the view
// current when a call arrives, so a refresh reaches calls at once.
func (s *Server) addTool(srv *mcp.Server, sp *toolSpec) {
	name := sp.name
	srv.AddTool(&mcp.Tool{
		Name:        sp.name,
		Title:       sp.annotations.Title,
		Description: sp.description,
		InputSchema: inputSchema,
		Annotations: sp.annotations,
	}, func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		ctx, end := s.tel.startExecution(ctx, req, sp.name)
		// Deferred first, so it runs last and sees the panic's result too.
		defer func() { end(res) }()
		defer func() {
			// A bug here must cost one call, not the process.
			if r := recover(); r != nil {
				s.logger.Error("codemode: panic in tool handler", "panic", r, "stack", string(debug.Stack()))
				res = errorResult(newExecError(sandbox.KindInternal, "the server failed to run the code; retry, and report it if it persists"), nil)
			}
		}()
		sp := s.current().tool(name)
		if sp == nil {
			// The catalogs changed and this tool no longer binds anything.
			return errorResult(newExecError(kindInvalidInput, "the tool "+name+" has no functions any more; use "+ToolName), nil), nil
		}
		return s.execute(ctx, req, sp), nil
	})
}

// execute runs one tools/call. Every failure the model can act on becomes
// an isError result, never a protocol error.
func (s *Server) execute(ctx context.Context, req *mcp.CallToolRequest, sp *toolSpec) *mcp.CallToolResult {
	var in toolInput
	dec := json.NewDecoder(strings.NewReader(string(req.Params.Arguments)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || in.Code == nil {
		return errorResult(newExecError(kindInvalidInput, `arguments must be {"code": "<TypeScript>"}`), nil)
	}
	code := *in.Code
	p, hasP := s.principal(ctx, req)
	sum := sha256.Sum256([]byte(code))
	base := AuditEvent{Tool: sp.name, TraceID: s.tel.traceID(ctx, req), CodeSHA256: hex.EncodeToString(sum[:]), CodeBytes: len(code)}
	if hasP {
		base.Subject, base.ClientID = p.Subject, p.ClientID
	}

	host := &execHost{s: s, bound: sp.bound, tiers: sp.tiers, spec: sp, base: base, apps: appsClient(req.ClientCapabilities())}
	// Functions adapted from go-sdk tools get this request's session,
	// token info and headers.
	ctx = mcpsource.WithRequest(ctx, req)
	if hasP {
		host.principal = &p
		ctx = catalog.WithPrincipal(ctx, p)
	} else {
		ctx = markUnwrapped(ctx, req)
	}
	if pr := s.newProgress(req); pr != nil {
		host.progress = pr
		ctx = progress.With(ctx, pr)
	}

	host.start = time.Now()
	ev := base
	ev.Kind, ev.Time = ExecutionStarted, host.start
	s.audit.Audit(ctx, ev)
	return s.runApproved(ctx, req, sp, code, host)
}

// finish audits the end of an execution and renders its result.
func (s *Server) finish(ctx context.Context, host *execHost, res *sandbox.Result, err error) *mcp.CallToolResult {
	ev := host.base
	ev.Time, ev.Duration = time.Now(), time.Since(host.start)
	if res != nil {
		ev.Calls = len(res.Calls)
	}
	if err != nil {
		xe := s.toExecError(err)
		ev.Kind, ev.ErrorKind = ExecutionFailed, string(xe.Kind)
		s.audit.Audit(ctx, ev)
		return errorResult(xe, res)
	}
	out := s.successResult(res)
	if st, ok := out.StructuredContent.(structured); ok && host.charts != nil {
		s.withCharts(ctx, out, &st, resultBytes(res), host)
		out.StructuredContent = st
	}
	ev.Kind = ExecutionFinished
	ev.ResultBytes = resultBytes(res)
	s.audit.Audit(ctx, ev)
	return out
}

// runSandbox runs code in the sandbox for host's principal. The principal
// is the sandbox's partition: the compile cache is partitioned by caller,
// so the speed of a cache hit tells nobody what another caller ran, and
// busy workers are shared out fairly between callers.
//
// entropy, when set, records the run's clock and Math.random and replays
// that record first (a run resuming an execution after an approval).
func (s *Server) runSandbox(ctx context.Context, code string, host *execHost, entropy *sandbox.Entropy) (*sandbox.Result, error) {
	partition := "" // anonymous callers share one partition
	if host.principal != nil {
		partition = "sub:" + host.principal.Subject
	}
	// A run resumed after an approval draws its charts anew, and its
	// discovery and free-call budgets start where the asking run's did: a budget spent
	// by the runs before would make it take another branch.
	host.charts = chartrun.New(s.sb.Limits().MaxOutputBytes)
	host.disc.Reset()
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	host.free.Reset(stop)
	ctx, end := s.tel.startRun(ctx)
	res, err := s.sb.RunWith(ctx, code, host, &sandbox.RunOptions{Partition: partition, Entropy: entropy})
	if context.Cause(ctx) == freecalls.ErrKeptCalling {
		err = &sandbox.Error{Kind: sandbox.KindCallLimit, Message: freecalls.ErrKeptCalling.Error()}
	}
	end(res, err)
	return res, err
}

// principal returns who the call acts for: the verified bearer token's
// subject, client and scopes, else a principal put in the context (stdio,
// Options.Principal through Handler or Middleware, a host's own
// middleware), else Options.Principal for a call that did not come over
// HTTP.
func (s *Server) principal(ctx context.Context, req *mcp.CallToolRequest) (catalog.Principal, bool) {
	// The token info is per HTTP request; a context value may date from
	// the request that opened a stateful session, so the token wins.
	if ex := req.Extra; ex != nil && ex.TokenInfo != nil && ex.TokenInfo.UserID != "" {
		p := catalog.Principal{Subject: ex.TokenInfo.UserID, Scopes: ex.TokenInfo.Scopes}
		if c, ok := ex.TokenInfo.Extra["client_id"].(string); ok {
			p.ClientID = c
		}
		return p, true
	}
	if p, ok := catalog.PrincipalFrom(ctx); ok {
		return p, true
	}
	// A server the host built and gave to AddTo, over a transport that is
	// not HTTP (stdio, in memory): the configured principal. Over HTTP the
	// principal comes from Handler or Middleware, which refuse remote
	// peers.
	if p := s.opts.Principal; p != nil && (req.Extra == nil || req.Extra.Header == nil) {
		return *p, true
	}
	return catalog.Principal{}, false
}

// toExecError turns a sandbox error into what the model reads, adding the
// validation issues of an uncaught host error.
func (s *Server) toExecError(err error) *execError {
	var se *sandbox.Error
	if !errors.As(err, &se) {
		if errors.Is(err, sandbox.ErrClosed) {
			return newExecError(sandbox.KindInternal, "the server is shutting down; retry shortly")
		}
		// The request ended: the caller's doing, not a failure.
		if errors.Is(err, context.DeadlineExceeded) {
			return newExecError(sandbox.KindCancelled, "the request's deadline passed before the execution finished")
		}
		if errors.Is(err, context.Canceled) {
			return newExecError(sandbox.KindCancelled, "the request was cancelled before the execution finished")
		}
		s.logger.Error("codemode: sandbox failure", "err", err)
		return newExecError(sandbox.KindInternal, "the sandbox failed; retry, and report it if it persists")
	}
	xe := &execError{Error: *se}
	xe.CallsUsed, xe.Data = 0, nil // the calls list and issues carry these
	if se.Kind == sandbox.KindRuntime && len(se.Data) > 0 {
		// An uncaught host error keeps its code and a validation error its
		// issues as properties.
		var d struct {
			Code   string          `json:"code"`
			Issues []catalog.Issue `json:"issues"`
		}
		// Data cut at the output limit ends its issues with a marker
		// string, which does not decode as an issue: keep the others.
		var ute *json.UnmarshalTypeError
		if err := json.Unmarshal(se.Data, &d); err == nil || errors.As(err, &ute) {
			xe.Code = d.Code
			xe.Issues = slices.DeleteFunc(d.Issues, func(is catalog.Issue) bool { return is.Message == "" })
		}
	}
	return xe
}
