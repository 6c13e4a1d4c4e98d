package codemode

import (
	"context"
	"io"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/stdioguard"
)

// ServeStdio serves one local MCP client over the process's stdin and
// stdout until the client disconnects or ctx ends. Every call acts as
// principal: a local process has no token to present, so the operator
// decides who it is. The principal's Scopes are what the session is
// granted: give it every scope the catalog's functions require (those
// listed by catalog.Functions), since a local user has no sign-in at which
// to grant more. Nothing else may write to stdout meanwhile.
//
// A message too large (over 4 MiB) or too deep (over 1,000 levels) fails
// only its own request, or the server request it answers (an
// elicitation), and the session keeps serving.
func (s *Server) ServeStdio(ctx context.Context, principal catalog.Principal) error {
	return s.ServeIO(ctx, principal, os.Stdin, nopCloser{os.Stdout})
}

// nopCloser keeps the process's stdout open when the session ends.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// ServeIO is ServeStdio over r and w instead of stdin and stdout, e.g. the
// ends of pipes in a test.
func (s *Server) ServeIO(ctx context.Context, principal catalog.Principal, r io.ReadCloser, w io.WriteCloser) error {
	return s.ServeTransport(ctx, principal, &mcp.IOTransport{Reader: stdioguard.New(r), Writer: w})
}

// ServeTransport serves one MCP session over t, acting as principal.
func (s *Server) ServeTransport(ctx context.Context, principal catalog.Principal, t mcp.Transport) error {
	return s.mcp.Run(catalog.WithPrincipal(ctx, principal), t)
}
