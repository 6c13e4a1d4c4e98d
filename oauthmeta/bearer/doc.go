// Package bearer verifies OAuth 2.1 access tokens and admits the HTTP
// requests that carry a valid one, answering the others with the RFC 6750
// challenges MCP clients act on.
//
// A [Verifier] turns a token into a [Token] or an error:
// [IntrospectionVerifier] asks the issuer about opaque tokens (RFC 7662);
// the Verifier of package jwtverify checks RFC 9068 JWT access tokens
// (issuer, exact audience, expiry, signature, the at+jwt type) on top of
// go-oidc. jwtverify is a module of its own
// (github.com/brakinglab/codemode-go/oauthmeta/jwtverify), so that go-oidc
// and go-jose reach only the services that verify JWTs. Errors caused by
// the token are [*TokenError]; errors caused by the server's side wrap
// oauthmeta.ErrUnavailable.
//
// [RequireBearer] is the middleware: a request without a token, with a bad
// one or with too few scopes gets 401 or 403 with a WWW-Authenticate
// challenge naming the resource metadata URL ([Challenge], error=
// "invalid_token" or "insufficient_scope"); an admitted request passes
// through go-sdk's [auth.RequireBearerToken], so tool handlers see go-sdk's
// TokenInfo. A verifier that implements [ClockSkewer] tells the middleware
// how much clock skew it allows, so that expiry is judged once, the same
// way.
//
// What go-sdk's auth package lacks is added here and in jwtverify: the two
// challenge kinds, the at+jwt type check, exact audience matching, one
// clock skew for exp, nbf and iat, and a key set that re-fetches at most
// once per interval however many forged tokens arrive.
package bearer
