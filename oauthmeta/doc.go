// Package oauthmeta makes an MCP server an OAuth 2.1 protected resource that
// Claude, ChatGPT and the official SDK clients can discover and use without
// manual configuration.
//
// Most services start with package codemode, which builds on this one (see
// its documentation); use this package directly for finer control.
//
// It serves the discovery documents — RFC 9728 protected-resource metadata
// and, for a service that is its own authorization server, RFC 8414
// authorization-server metadata ([Mount]) — verifies bearer JWT access
// tokens ([JWTVerifier], RFC 9068 on top of go-oidc) or opaque ones by RFC
// 7662 introspection ([IntrospectionVerifier]), and answers
// unauthenticated or under-scoped requests with the RFC 6750 challenges
// clients act on ([RequireBearer]).
//
// It builds on go-sdk's auth and oauthex packages: the metadata types, the
// protected-resource metadata handler and [auth.RequireBearerToken], through
// which every admitted request passes so tool handlers see go-sdk's
// TokenInfo. What go-sdk lacks is added here: error="invalid_token" and
// error="insufficient_scope" challenges, the at+jwt type check, exact
// audience matching, one clock skew for exp, nbf and iat, and a key set
// that re-fetches at most once per interval however many forged tokens
// arrive.
package oauthmeta
