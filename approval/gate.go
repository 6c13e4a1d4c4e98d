package approval

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/sandbox"
)

// Gate is where an execution's host calls meet the approval flow. The
// server puts [Gate.Decide] and [Gate.Record] in the host call chain of
// the execution and hands the Gate to [Service.Execute] in [Call]; while
// a run of the execution may need approval, the Gate decides each call
// in the order the script made it (sandbox.CallPosition): answer it from
// the record of the runs before, run it, stop it, or make it wait for
// the user's approval after a dry run. Outside such a run both links
// pass every call through. The zero Gate is ready to use; a Gate serves
// one execution.
type Gate struct {
	run atomic.Pointer[approvalRun] // nil: no call needs approval in this run
}

// runKey carries the approval run that decided a live call to the
// record link: a run ends, and the next starts, while calls of the
// previous one may still return.
type runKey struct{}

// Decide is the interceptor that decides a call. It belongs before the
// links that check the name is bound, set the principal and call the
// catalog, and after the one that counts calls (progress).
func (g *Gate) Decide(next catalog.CallFunc) catalog.CallFunc {
	return func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		ap := g.run.Load()
		if ap == nil {
			return next(ctx, name, args)
		}
		defer ap.exit()
		// Decide calls in the order the script made them (approvalRun).
		pos, hasPos := sandbox.PositionOf(ctx)
		if hasPos {
			ap.awaitTurn(ctx, pos.Index)
		}
		d := runLive
		if _, bound := ap.x.Tier(name); bound {
			d = ap.intercept(name, pos, hasPos, args)
		}
		if hasPos {
			ap.pass(pos.Index)
		}
		if !d.live {
			return d.out, d.err
		}
		return next(context.WithValue(ctx, runKey{}, ap), name, args)
	}
}

// Record is the interceptor that records what a live call returned, for
// the runs that resume the execution. It belongs after the link that
// refuses names the tool does not bind, before the catalog.
func (g *Gate) Record(next catalog.CallFunc) catalog.CallFunc {
	return func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		out, err := next(ctx, name, args)
		ap, _ := ctx.Value(runKey{}).(*approvalRun)
		if ap == nil {
			return out, err
		}
		if err != nil && ctx.Err() != nil && catalog.CodeOf(err) != catalog.CodeOutcomeUnknown {
			// Cut off by the run's end, and the host says without effect:
			// the script never read this error, so the next run makes the
			// call again rather than replaying it.
			return out, err
		}
		tier, _ := ap.x.Tier(name)
		ap.ran(name, tier, args, out, err)
		return out, err
	}
}
