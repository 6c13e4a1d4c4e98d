package codemodetest

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
)

// Connect serves srv to the official go-sdk client over in-memory
// transports, acting as principal, and returns the client's session:
// what a test (or an example) of a server the host built itself, with
// codemode.New or codemode.NewMulti, needs to call its tools without
// stdio or HTTP. opts configures the client; nil means a client that
// declares no capabilities. Closing the session ends the served session;
// so does ending ctx.
func Connect(ctx context.Context, srv *codemode.Server, principal catalog.Principal, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	cs, _, err := connect(ctx, srv, principal, opts)
	if err != nil {
		return nil, fmt.Errorf("codemodetest: %w", err)
	}
	return cs, nil
}

// connect is Connect that also returns the served session's end, which
// Execute waits for.
func connect(ctx context.Context, srv *codemode.Server, principal catalog.Principal, opts *mcp.ClientOptions) (*mcp.ClientSession, <-chan error, error) {
	if srv == nil {
		return nil, nil, errors.New("nil server")
	}
	ctx, cancel := context.WithCancel(ctx)
	st, ct := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() {
		defer cancel()
		served <- srv.ServeTransport(ctx, principal, st)
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "codemodetest", Version: codemode.Version}, opts).Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		<-served
		return nil, nil, fmt.Errorf("connecting: %w", err)
	}
	return cs, served, nil
}
