package codemode

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
)

// A server the host built and gave to [Server.AddTo] gets a principal
// over HTTP only through [Server.Middleware] (or the server's own
// [Server.Handler]): it is the stack that verifies the bearer token or
// puts Options.Principal in the request. A host that serves that server
// with go-sdk's StreamableHTTPHandler alone, and has no authentication of
// its own, sends every execution to the catalog without a principal, and
// each host call used to fail with "authentication required: sign in and
// retry", which no sign-in can fix. The stack marks each request it
// passes on, so that such a call says what is missing instead.

// throughStackKey marks a request context that passed through the stack
// of Handler or Middleware.
type throughStackKey struct{}

// markStack marks each request it passes to next as having passed
// through the stack.
func markStack(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), throughStackKey{}, true)))
	})
}

// unwrappedKey marks an execution's context whose request came over HTTP
// without passing through the stack, and without a principal.
type unwrappedKey struct{}

// markUnwrapped returns ctx marked when req, which carries no principal,
// came over HTTP (it has headers) past the stack of Handler and
// Middleware.
func markUnwrapped(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	if req.Extra == nil || req.Extra.Header == nil || ctx.Value(throughStackKey{}) != nil {
		return ctx
	}
	return context.WithValue(ctx, unwrappedKey{}, true)
}

// explainUnauthenticated replaces the catalog's ErrUnauthenticated for a
// call whose request skipped Middleware with an error that says so, and
// logs the misconfiguration once per Server. Other errors pass unchanged.
func (s *Server) explainUnauthenticated(ctx context.Context, name string, err error) error {
	if err == nil || ctx.Value(unwrappedKey{}) == nil || !errors.Is(err, catalog.ErrUnauthenticated) {
		return err
	}
	s.unwrappedOnce.Do(func() {
		s.logger.Error("codemode: an execute_code request came over HTTP without passing through Server.Middleware, so it has no principal and its host calls fail as unauthenticated: " +
			"wrap the HTTP handler that serves the MCP server given to Server.AddTo in Server.Middleware (or serve Server.Handler)")
	})
	return &catalog.Error{Code: catalog.CodeUnauthenticated, Message: fmt.Sprintf(
		"%s: authentication required, and this request cannot be authenticated: the server is misconfigured. "+
			"It reached execute_code over HTTP without passing through codemode's Server.Middleware, which authenticates each request and supplies the principal. "+
			"The server's operator must wrap the HTTP handler that serves the MCP server given to Server.AddTo in Server.Middleware. "+
			"Signing in again or retrying will not help; tell the user.", name)}
}
