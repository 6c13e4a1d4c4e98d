package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/chartrun"
	"github.com/brakinglab/codemode-go/internal/discover"
	"github.com/brakinglab/codemode-go/internal/freecalls"
	"github.com/brakinglab/codemode-go/internal/progress"
	"github.com/brakinglab/codemode-go/sandbox"
	"github.com/brakinglab/codemode-go/saved"
)

// execHost adapts the catalog to sandbox.Host for one execution: it binds
// the functions the tool exposes, calls the catalog as the execution's
// principal, reports progress and writes one audit event per call.
type execHost struct {
	s         *Server
	bound     map[string][]string     // namespace → bound function names
	tiers     map[string]catalog.Tier // qualified name → tier
	principal *catalog.Principal      // nil: anonymous
	spec      *toolSpec               // the tool: what discovery may show
	base      AuditEvent              // trace id, principal, tool
	progress  *progress.Reporter
	gate      approval.Gate // decides and records calls while a run may need approval
	chainOnce sync.Once
	call      catalog.CallFunc // the links a call passes through (chain)
	start     time.Time        // the execution's start, for its audit event

	saved  saved.Binding    // the saved functions bound, once listed
	free   freecalls.Budget // this execution's free calls (codemode.*)
	disc   discover.Budget  // this execution's discovery budget
	charts *chartrun.Run    // what codemode.chart added in the current run
	apps   bool             // the client declared the MCP Apps extension
}

// Functions implements sandbox.Host: the tool's functions, and the
// discovery functions in their own namespace.
func (h *execHost) Functions() map[string][]string {
	out := make(map[string][]string, len(h.bound)+1)
	for ns, names := range h.bound {
		out[ns] = names
	}
	out[DiscoveryNamespace] = []string{"chart", "describe", "progress", "search"}
	h.bindSaved(out)
	return out
}

// FreeNamespaces implements sandbox.FreeHost: discovery, chart and progress calls
// are neither counted against the call limit nor listed as calls.
func (h *execHost) FreeNamespaces() []string { return []string{DiscoveryNamespace} }

// Call implements sandbox.Host. name is "namespace.function".
func (h *execHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	if fn, ok := strings.CutPrefix(name, DiscoveryNamespace+"."); ok {
		return h.free.Call(fn, args, func() (json.RawMessage, error) { return h.freeCall(ctx, fn, args) })
	}
	return h.chain()(ctx, name, args)
}

// freeCall answers a call of the codemode namespace, within the
// execution's free-call budget (internal/freecalls): one case per
// function.
func (h *execHost) freeCall(ctx context.Context, fn string, args json.RawMessage) (json.RawMessage, error) {
	switch {
	case fn == "progress":
		return progress.ScriptCall(ctx, args)
	case fn == "chart":
		return h.charts.Call(ctx, args)
	case len(h.SubprogramNamespaces()) > 0 && slices.Contains(saved.ScriptFunctions, fn):
		out, _, err := h.s.opts.Saved.ScriptCall(context.WithValue(ctx, savedBaseKey{}, h.base), h.savedEnv(), fn, args)
		return out, err
	case h.spec != nil:
		// Discovery needs no scope: it shows only what this tool binds.
		return h.discover(fn, args)
	}
	return nil, fmt.Errorf("%s.%s is not available in this tool", DiscoveryNamespace, fn)
}

// chain returns the links a host call passes through, built once per
// execution. Outermost first, the order is stated here and nowhere else:
//
//  1. progress: numbers the call and reports progress;
//  2. approval: decides the call in the order the script made it when a
//     function may need approval (approval.Gate.Decide): it may answer
//     from the record, stop or diverge, or wait for the user's approval;
//  3. bound: refuses a name the tool does not bind (defence in depth: the
//     sandbox binds only what Functions lists);
//  4. record: records what a live call returned, for a resumed run
//     (approval.Gate.Record);
//  5. principal: the execution's principal in the context;
//  6. telemetry: the call's span and metrics;
//  7. audit: one function.called event;
//  8. outcome: marks an outcome_unknown error so that the sandbox records
//     the call as unknown, never as failed or cancelled without effect;
//
// then the catalog.
func (h *execHost) chain() catalog.CallFunc {
	h.chainOnce.Do(func() {
		h.call = catalog.Chain(h.s.callCatalog, h.progressLink, h.gate.Decide, h.boundLink, h.gate.Record, h.principalLink, h.telemetryLink, h.auditLink, outcomeLink)
	})
	return h.call
}

func (h *execHost) progressLink(next catalog.CallFunc) catalog.CallFunc {
	return func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		h.progress.Call(ctx, name)
		return next(ctx, name, args)
	}
}

func (h *execHost) boundLink(next catalog.CallFunc) catalog.CallFunc {
	return func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		if _, bound := h.tiers[name]; !bound {
			return nil, fmt.Errorf("%s is not available in this tool", name)
		}
		return next(ctx, name, args)
	}
}

func (h *execHost) principalLink(next catalog.CallFunc) catalog.CallFunc {
	return func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		if h.principal != nil {
			ctx = catalog.WithPrincipal(ctx, *h.principal)
		}
		return next(ctx, name, args)
	}
}

func (h *execHost) telemetryLink(next catalog.CallFunc) catalog.CallFunc {
	return func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		ctx, end := h.s.tel.startCall(ctx, name, h.tiers[name], args)
		out, err := next(ctx, name, args)
		end(err)
		return out, err
	}
}

func (h *execHost) auditLink(next catalog.CallFunc) catalog.CallFunc {
	return func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		start := time.Now()
		out, err := next(ctx, name, args)
		ev := h.base
		ev.Kind = FunctionCalled
		ev.Time = start
		ev.Function = name
		ev.Tier = h.tiers[name].String()
		if pos, ok := sandbox.PositionOf(ctx); ok {
			ev.From = pos.From
		}
		ev.Args = auditArgs(h.s.opts.Audit.Args, args)
		ev.Duration = time.Since(start)
		ev.ResultBytes = len(out)
		if err != nil {
			ev.ErrorKind = catalog.CodeOf(err)
		}
		h.s.audit.Audit(ctx, ev)
		return out, err
	}
}

func outcomeLink(next catalog.CallFunc) catalog.CallFunc {
	return func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		out, err := next(ctx, name, args)
		if catalog.CodeOf(err) == catalog.CodeOutcomeUnknown {
			err = sandbox.MarkOutcomeUnknown(err)
		}
		return out, err
	}
}
