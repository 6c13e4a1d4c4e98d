package mcpsource

// Running one upstream tool call within the upstream's bounds.

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
)

// call runs one upstream tool call within the upstream's bounds. write
// says the tool may change something (it is not READ-ONLY): once such a
// call has been sent, an error must not let the model believe it did
// nothing, or a retry could make the change twice.
func (u *Upstream) call(ctx context.Context, fn, tool string, write bool, args json.RawMessage) (json.RawMessage, error) {
	qual := u.name + "." + fn
	cctx, cancel := context.WithTimeout(ctx, u.opts.CallTimeout)
	defer cancel()
	select {
	case u.sem <- struct{}{}:
		defer func() { <-u.sem }()
	case <-cctx.Done():
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, upstreamError("%s: the %s server is busy with %d calls; retry later", qual, u.name, u.opts.MaxConcurrent)
	}
	c := u.shared
	if p, ok := catalog.PrincipalFrom(ctx); ok && u.opts.PerPrincipal {
		c = u.userConn(p)
	}
	sess, err := c.session(cctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	res, err := sess.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, u.callError(ctx, cctx, qual, write, err)
	}
	if res.IsError {
		return nil, toolError(errorText(res))
	}
	b, err := resultJSON(res)
	var failed string
	if err != nil {
		u.opts.Logger.Warn("mcpsource: upstream result does not encode", "function", qual, "error", err)
		failed = fmt.Sprintf("%s: the %s server sent a result that is not JSON", qual, u.name)
	} else if len(b) > u.opts.MaxResultBytes {
		failed = fmt.Sprintf("%s returned %d bytes, more than the %d this server accepts from %s; ask for less data", qual, len(b), u.opts.MaxResultBytes, u.name)
	}
	switch {
	case failed == "":
		return b, nil
	case write:
		return nil, outcomeUnknown(qual, failed)
	}
	return nil, upstreamError("%s", failed)
}
