// Package httpmw holds the HTTP middleware codemode puts in front of its MCP
// endpoint: CORS with the MCP headers, a per-key rate limit and a request
// body limit. Each middleware is a plain func(http.Handler) http.Handler so
// the order of the stack stays visible where it is assembled.
package httpmw
