// Package httpmw holds the HTTP middleware codemode puts in front of its MCP
// endpoint: CORS with the MCP headers, a per-key rate limit, a request body
// limit, and for stateless endpoints the registry of tools/call requests in
// flight that lets a later notifications/cancelled POST cancel them, the
// loopback-only guard of a server without authentication, and how a
// client's address is read behind trusted proxies ([ForwardedFor]) and
// grouped for a limit ([AddrKey]). Each
// middleware is a plain func(http.Handler) http.Handler so the order of the
// stack stays visible where it is assembled. The limiters and the registry
// are interfaces ([Limiter], [FailureCounter], [CallRegistry]) so that
// replicas can share them; the in-process [RateLimiter] and [Cancels] are
// the defaults.
package httpmw
