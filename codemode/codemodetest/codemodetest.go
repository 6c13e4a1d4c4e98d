// Package codemodetest runs code-mode scripts against a catalog in a test,
// the way a model's scripts run in production, without HTTP.
//
// [New] wraps a catalog in a real codemode.Server (the same sandbox, limits,
// validation, scopes and approvals) and [Harness.Run] sends one script
// through the official go-sdk client over an in-memory MCP transport, as
// a given principal. The [Result] holds what the model would read: the
// value (decode it with [Value] or [Decode]), the logs, the warnings, the
// host calls and the error, whose kind and code a test can assert with
// errors.Is. Approvals are answered by the test ([Accept], [Decline]).
//
// In the default worker mode the sandbox re-executes the test binary as
// its workers, exactly as it re-executes a service's binary, so limits on
// memory hold as in production. Options.Server.SandboxMode =
// sandbox.ModeInProcess is faster per harness and enforces no memory
// limit.
//
//	func TestGetLaps(t *testing.T) {
//		h := codemodetest.New(t, cat, nil)
//		res := h.Run(t, `return await garage.getLaps({ track: "Spa" })`)
//		laps := codemodetest.Value[[]Lap](t, res)
//		if len(laps) != 3 {
//			t.Fatalf("got %d laps", len(laps))
//		}
//	}
package codemodetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
)

// Options configures a Harness. The zero value is the documented default.
type Options struct {
	// Principal is who the scripts act as. Nil means subject "test",
	// client "codemodetest", holding every scope the catalog's functions
	// require.
	Principal *catalog.Principal
	// Approve answers the user's approval requests of calls that need one
	// ([Accept], [Decline] or a function of the test). Nil means a client
	// that cannot ask the user, so the server's approval.Options.Fallback
	// applies (by default the call is refused).
	Approve ApproveFunc
	// Server configures the codemode.Server; nil means its defaults (the
	// sandbox runs in worker processes: the test binary, re-executed).
	// Principal is always replaced by the harness's principal, and a nil
	// Audit by the harness's recorder ([Harness.Audit]).
	Server *codemode.Options
}

// ApproveFunc answers one approval request. message is the text the user
// reads: the calls to approve, with their arguments.
type ApproveFunc func(message string) bool

// Accept approves every request.
func Accept(string) bool { return true }

// Decline declines every request.
func Decline(string) bool { return false }

// Harness is a codemode.Server run for a test. It is safe for concurrent
// use: every Run opens its own MCP session.
type Harness struct {
	srv       *codemode.Server
	principal catalog.Principal
	approve   ApproveFunc

	mu    sync.Mutex
	audit []codemode.AuditEvent
}

// New starts a Harness for cat and closes it when the test ends. It fails
// the test if the server does not start.
func New(tb testing.TB, cat *catalog.Catalog, opts *Options) *Harness {
	tb.Helper()
	h, err := Start(cat, opts)
	if err != nil {
		tb.Fatalf("codemodetest: %v", err)
	}
	tb.Cleanup(func() { h.Close() })
	return h
}

// Start is New for callers without a testing.TB: it returns the error,
// and the caller calls Close.
func Start(cat *catalog.Catalog, opts *Options) (*Harness, error) {
	if cat == nil {
		return nil, errors.New("nil catalog")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	h := &Harness{approve: o.Approve}
	if o.Principal != nil {
		h.principal = *o.Principal
	} else {
		h.principal = catalog.Principal{Subject: "test", ClientID: "codemodetest", Scopes: allScopes(cat)}
	}
	var so codemode.Options
	if o.Server != nil {
		so = *o.Server
	}
	so.Principal = &h.principal
	if so.Audit.Sink == nil {
		so.Audit.Sink = codemode.AuditFunc(h.record)
	}
	srv, err := codemode.New(cat, &so)
	if err != nil {
		return nil, err
	}
	h.srv = srv
	return h, nil
}

// allScopes lists every scope cat's functions require.
func allScopes(cat *catalog.Catalog) []string {
	var out []string
	for _, f := range cat.Functions() {
		for _, s := range f.Scopes {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

func (h *Harness) record(_ context.Context, ev codemode.AuditEvent) {
	h.mu.Lock()
	h.audit = append(h.audit, ev)
	h.mu.Unlock()
}

// Server returns the codemode.Server the harness runs.
func (h *Harness) Server() *codemode.Server { return h.srv }

// Audit returns the audit events recorded so far, in order, when
// Options.Server.Audit was nil.
func (h *Harness) Audit() []codemode.AuditEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.audit)
}

// Close stops the server and its sandbox workers. New registers it as a
// cleanup.
func (h *Harness) Close() error { return h.srv.Close() }

// Run runs code as Options.Principal through the execute_code tool and
// returns its result, a failed execution included. It fails tb only when
// the script could not be sent (a broken harness, not a failing script).
func (h *Harness) Run(tb testing.TB, code string) *Result {
	tb.Helper()
	res, err := h.Execute(tb.Context(), code, nil)
	if err != nil {
		tb.Fatalf("codemodetest: %v", err)
	}
	return res
}

// RunOptions changes one execution. The zero value is the Harness's
// default.
type RunOptions struct {
	// Principal replaces Options.Principal for this execution.
	Principal *catalog.Principal
	// Approve replaces Options.Approve for this execution.
	Approve ApproveFunc
	// Tool is the tool to call; default codemode.ToolName. Use
	// codemode.ReadOnlyToolName for the READ-ONLY tool.
	Tool string
}

// Execute runs code with opts (nil for the defaults). Its error reports a
// failure to run the script at all; a script that fails returns a Result
// whose Err is set.
func (h *Harness) Execute(ctx context.Context, code string, opts *RunOptions) (*Result, error) {
	var o RunOptions
	if opts != nil {
		o = *opts
	}
	p := h.principal
	if o.Principal != nil {
		p = *o.Principal
	}
	approve := h.approve
	if o.Approve != nil {
		approve = o.Approve
	}
	tool := o.Tool
	if tool == "" {
		tool = codemode.ToolName
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	res := &Result{}
	var copts mcp.ClientOptions
	if approve != nil {
		copts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			ok := approve(req.Params.Message)
			res.Approvals = append(res.Approvals, Approval{Message: req.Params.Message, Accepted: ok})
			if ok {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
			}
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
	}
	cs, served, err := connect(ctx, h.srv, p, &copts)
	if err != nil {
		return nil, err
	}
	out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"code": code}})
	// Closing the client ends the server's session as a client leaving
	// does; cancelling it would be logged as a failure.
	cs.Close()
	<-served
	if err != nil {
		return nil, fmt.Errorf("calling %s: %w", tool, err)
	}
	if err := res.fill(out); err != nil {
		return nil, err
	}
	return res, nil
}
