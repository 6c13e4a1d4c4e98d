package catalog

import (
	"context"
	"encoding/json"
)

// CallFunc is one function call as a caller of a catalog makes it: fn
// names the function (as the caller names it; codemode passes
// "namespace.function") and args are its JSON arguments. It returns the
// JSON result or an error, as [Catalog.Call] does.
type CallFunc func(ctx context.Context, fn string, args json.RawMessage) (json.RawMessage, error)

// Interceptor wraps a call with what happens around it: it may act
// before and after next, change the context next sees, or answer the call
// itself without calling next (a replayed answer, a refusal). Tracing,
// audit, approvals and a replay record are interceptors in codemode.
//
// An Interceptor must be safe for concurrent use: calls run concurrently.
type Interceptor func(next CallFunc) CallFunc

// Chain returns call wrapped in interceptors. The first interceptor is
// the outermost: it sees the call first and its outcome last, as with
// connect-go's interceptors and net/http middleware.
func Chain(call CallFunc, interceptors ...Interceptor) CallFunc {
	for i := len(interceptors) - 1; i >= 0; i-- {
		call = interceptors[i](call)
	}
	return call
}
