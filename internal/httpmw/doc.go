// Package httpmw holds the HTTP middleware codemode puts in front of its MCP
// endpoint: CORS with the MCP headers, a per-key rate limit, a request body
// limit, the JSON-RPC envelope check, the failed-authentication limit per
// client address, the loopback-only guard and [AsPrincipal] of a server
// without authentication, and for stateless endpoints the registry of
// tools/call requests in flight that lets a later notifications/cancelled
// POST cancel them ([Cancellation], with [JoinCancellation] on the MCP
// server). [Keys] names the caller of a request for all of them: a
// client's address read behind trusted proxies ([ForwardedFor]) and
// grouped ([AddrKey]), its principal, and the owner of its calls.
//
// Each middleware is a plain func(http.Handler) http.Handler; [Stack] is
// the one place that states their order in front of an endpoint. The
// limiters and the registry are interfaces ([Limiter], [FailureCounter],
// [CallRegistry]) so that replicas can share them; the in-process
// [RateLimiter] and [Cancels] are the defaults.
package httpmw
