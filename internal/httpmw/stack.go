package httpmw

import (
	"log/slog"
	"net/http"
)

// Stack is the middleware in front of an MCP endpoint, applied by Wrap in
// one order. From the outside in: the body limit, the caller's mark, the
// identity (authentication or a configured principal), the JSON-RPC
// envelope (read once for what follows: batches refused where the
// protocol removed them, capped elsewhere), the request limit (every
// message costs a token, so no method is free to flood), the execution
// limit (each tools/call of a code tool, also inside a batch) and the
// registry that lets a notifications/cancelled POST outside a session
// cancel the call it names. Sessions and stateless requests pass through
// the same stack: the routing to either is inside the endpoint.
type Stack struct {
	// MaxBodyBytes caps a request body (BodyLimit).
	MaxBodyBytes int64
	// Mark wraps everything inside the body limit, so the endpoint can
	// tell a request passed this stack; nil marks nothing.
	Mark func(http.Handler) http.Handler
	// Identity authenticates a request or refuses it; nil passes every
	// request on as it is.
	Identity func(http.Handler) http.Handler
	// Requests limits messages per Principal key; nil means no limit.
	Requests Limiter
	// Executions limits executions per Principal key: each tools/call of
	// one of CodeTools, or of any tool when CodeTools is empty. Nil means
	// no limit.
	Executions Limiter
	// CodeTools are the tools whose calls are executions.
	CodeTools []string
	// Calls registers tools/call requests outside a session under their
	// Owner key; a session cancels its own calls, and requests carrying
	// an Mcp-Session-Id pass on untouched.
	Calls CallRegistry
	// Owner keys whose calls a cancellation may cancel.
	Owner func(*http.Request) string
	// Principal keys the request and execution limits.
	Principal func(*http.Request) string
	// Logger receives refusals and registry errors.
	Logger *slog.Logger
}

// Wrap puts the stack in front of endpoint.
func (st *Stack) Wrap(endpoint http.Handler) http.Handler {
	endpoint = Cancellation(st.Calls, st.Owner, st.Logger)(endpoint)
	endpoint = RateLimitCost(st.Executions, st.Principal, ToolCallCost(st.CodeTools...), st.Logger)(endpoint)
	endpoint = RateLimitCost(st.Requests, st.Principal, RequestCost, st.Logger)(endpoint)
	endpoint = JSONRPC(DefaultMaxBatch)(endpoint)
	if st.Identity != nil {
		endpoint = st.Identity(endpoint)
	}
	if st.Mark != nil {
		endpoint = st.Mark(endpoint)
	}
	return BodyLimit(st.MaxBodyBytes)(endpoint)
}
