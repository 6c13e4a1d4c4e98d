package mcpsource

// What a call the session could not complete becomes: an upstream error, or,
// for a call that may write, an unknown outcome.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
)

// outcomeUnknown is the error of a call that may write, sent upstream,
// whose answer was lost or could not be passed on; what says why.
func outcomeUnknown(qual, what string) error {
	return &catalog.Error{Code: catalog.CodeOutcomeUnknown, Message: what + ". The call was sent, so it may have taken effect: check its effect (read it back) before calling " + qual + " again."}
}

// callError says what went wrong with a call the session could not
// complete. write says the tool may change something: once its call was
// sent, only a refusal says nothing ran, so every other failure is an
// unknown outcome, never "retry", or a retry could make the change twice.
func (u *Upstream) callError(ctx, cctx context.Context, qual string, write bool, err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		// The server refused the request: its own words.
		return upstreamError("%s: the %s server refused the call: %s", qual, u.name, we.Message)
	}
	var why, retry string // what happened; what a read may do next
	switch {
	case ctx.Err() != nil:
		if !write {
			return ctx.Err()
		}
		why = "the execution ended while the call was in flight"
	case cctx.Err() != nil:
		why = fmt.Sprintf("the %s server did not answer within %s", u.name, u.opts.CallTimeout)
		retry = "; retry later, or ask for less"
	case errors.Is(err, mcp.ErrConnectionClosed):
		// Also a call made after an oversized answer ended the session.
		u.opts.Logger.Warn("mcpsource: upstream session ended during a call", "function", qual, "error", err)
		why = fmt.Sprintf("the %s server stopped during the call and is being restarted", u.name)
		retry = "; retry in a few seconds"
	case strings.Contains(err.Error(), frameTooLarge):
		// The session cannot find the next message after the cut and
		// ends, failing every call waiting on it with this error: the one
		// whose answer was too large, which would fail the same way again,
		// and any other, which may be retried.
		u.opts.Logger.Warn("mcpsource: upstream answer over the message limit", "function", qual, "error", err)
		why = fmt.Sprintf("the %s server sent an answer larger than one message may be (%d MiB over stdio), so its session was ended and is being restarted", u.name, mcp.DefaultMaxLineLength>>20)
		retry = ". If this call asks for much data, ask for less; otherwise retry in a few seconds"
	default:
		u.opts.Logger.Warn("mcpsource: upstream call failed", "function", qual, "error", err)
		why = fmt.Sprintf("the %s server sent an answer that is not valid MCP", u.name)
	}
	if write {
		return outcomeUnknown(qual, qual+": "+why)
	}
	return upstreamError("%s: %s%s", qual, why, retry)
}

// frameTooLarge is the text of go-sdk's error for an inbound message over
// mcp.DefaultMaxLineLength, which it does not export.
// TestMisbehavingUpstream fails if it changes.
const frameTooLarge = "exceeded the configured maximum line length"

func upstreamError(format string, args ...any) error {
	return &catalog.Error{Code: catalog.CodeUpstream, Message: fmt.Sprintf(format, args...)}
}
