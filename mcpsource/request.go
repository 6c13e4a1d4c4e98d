package mcpsource

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type requestKey struct{}

// WithRequest returns a copy of ctx that carries the MCP request a
// catalogue call runs within: codemode puts each execute_code request
// there, so that a go-sdk tool called from a script gets that request's
// session, token info and headers.
func WithRequest(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	return context.WithValue(ctx, requestKey{}, req)
}

// RequestFrom returns the request ctx carries, if any.
func RequestFrom(ctx context.Context) (*mcp.CallToolRequest, bool) {
	r, ok := ctx.Value(requestKey{}).(*mcp.CallToolRequest)
	return r, ok && r != nil
}

// derive returns the request a go-sdk handler gets for one call of tool
// with args: the enclosing request's session and extra (token info,
// headers), and params naming the tool and carrying the arguments. Without
// an enclosing request (a host calling the catalogue directly) Session
// and Extra are nil, as for a call that did not come over MCP.
func derive(ctx context.Context, tool string, args json.RawMessage) *mcp.CallToolRequest {
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: args}}
	if outer, ok := RequestFrom(ctx); ok {
		// Not Params.Meta: its progress token belongs to execute_code.
		req.Session, req.Extra = outer.Session, outer.Extra
	}
	return req
}
