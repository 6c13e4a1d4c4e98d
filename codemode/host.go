package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/sandbox"
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
	progress  func(ctx context.Context, name string, n int)
	ap        atomic.Pointer[approvalRun] // nil: no call needs approval in this run
	start     time.Time                   // the execution's start, for its audit event

	// progressMu keeps notifications in call order: progress must only
	// grow, and concurrent calls (Promise.all) start on many goroutines.
	progressMu sync.Mutex
	mu         sync.Mutex
	calls      int
	disc       discoveryUse // this execution's discovery budget
	charts     *charts      // what codemode.chart added in the current run
	apps       bool         // the client declared the MCP Apps extension
}

// count numbers a call and reports it as progress.
func (h *execHost) count(ctx context.Context, name string) {
	if h.progress != nil {
		h.progressMu.Lock()
		defer h.progressMu.Unlock()
	}
	h.mu.Lock()
	h.calls++
	n := h.calls
	h.mu.Unlock()
	if h.progress != nil {
		h.progress(ctx, name, n)
	}
}

// Functions implements sandbox.Host: the tool's functions, and the
// discovery functions in their own namespace.
func (h *execHost) Functions() map[string][]string {
	out := make(map[string][]string, len(h.bound)+1)
	for ns, names := range h.bound {
		out[ns] = names
	}
	out[DiscoveryNamespace] = []string{"chart", "describe", "progress", "search"}
	return out
}

// FreeNamespaces implements sandbox.FreeHost: discovery, chart and progress calls
// are neither counted against the call limit nor listed as calls.
func (h *execHost) FreeNamespaces() []string { return []string{DiscoveryNamespace} }

// Call implements sandbox.Host. name is "namespace.function".
func (h *execHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	if name == DiscoveryNamespace+".progress" {
		return scriptProgress(ctx, args)
	}
	if name == DiscoveryNamespace+".chart" {
		return h.scriptChart(ctx, args)
	}
	if fn, ok := strings.CutPrefix(name, DiscoveryNamespace+"."); ok && h.spec != nil {
		// Discovery needs no scope: it shows only what this tool binds.
		return h.discover(fn, args)
	}
	ap := h.ap.Load()
	if ap != nil {
		defer ap.exit()
		// Decide calls in the order the script made them (approvalRun).
		pos, hasPos := sandbox.PositionOf(ctx)
		if hasPos {
			ap.awaitTurn(ctx, pos.Index)
		}
		d := h.decide(ctx, ap, name, pos, hasPos, args)
		if hasPos {
			ap.pass(pos.Index)
		}
		if !d.live {
			return d.out, d.err
		}
	}
	tier, bound := h.tiers[name]
	if !bound {
		// The sandbox binds only what Functions lists; this is defence in depth.
		return nil, fmt.Errorf("%s is not available in this tool", name)
	}
	if ap == nil {
		h.count(ctx, name)
	}
	if h.principal != nil {
		ctx = catalog.WithPrincipal(ctx, *h.principal)
	}

	start := time.Now()
	ctx, end := h.s.tel.startCall(ctx, name, tier, args)
	out, err := h.s.callCatalog(ctx, name, args)
	if catalog.CodeOf(err) == catalog.CodeOutcomeUnknown {
		// The sandbox then records the call as unknown, never as failed or
		// cancelled without effect.
		err = sandbox.MarkOutcomeUnknown(err)
	}
	end(err)
	ev := h.base
	ev.Kind = FunctionCalled
	ev.Time = start
	ev.Function = name
	ev.Tier = tier.String()
	ev.Args = auditArgs(h.s.opts.AuditArgs, args)
	ev.Duration = time.Since(start)
	ev.ResultBytes = len(out)
	if err != nil {
		ev.ErrorKind = catalog.CodeOf(err)
	}
	h.s.audit.Audit(ctx, ev)
	if ap != nil {
		if err != nil && ctx.Err() != nil && catalog.CodeOf(err) != catalog.CodeOutcomeUnknown {
			// Cut off by the run's end, and the host says without effect:
			// the script never read this error, so the next run makes the
			// call again rather than replaying it.
			return out, err
		}
		ap.ran(name, tier, args, out, err)
	}
	return out, err
}

// decide counts a call and lets the approval run decide it; a name the
// tool does not bind is left to Call to refuse.
func (h *execHost) decide(ctx context.Context, ap *approvalRun, name string, pos sandbox.CallPosition, hasPos bool, args json.RawMessage) decision {
	if _, bound := h.tiers[name]; !bound {
		return runLive
	}
	h.count(ctx, name)
	return ap.intercept(h, name, pos, hasPos, args)
}
