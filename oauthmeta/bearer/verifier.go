package bearer

import (
	"context"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/oauthmeta/internal/fetch"
)

// A Verifier checks an access token and says who it speaks for.
// [IntrospectionVerifier] asks the issuer (RFC 7662); the Verifier of
// package jwtverify (module github.com/brakinglab/codemode-go/oauthmeta/jwtverify)
// checks RFC 9068 JWTs locally.
//
// A token that is not acceptable (bad signature, expired, wrong audience…)
// must yield an error wrapping [auth.ErrInvalidToken] — a [*TokenError]
// does — so the middleware answers 401 invalid_token. Any other error
// (the key set cannot be fetched, say) is treated as the server's problem
// and answered with 503.
type Verifier interface {
	Verify(ctx context.Context, token string) (*Token, error)
}

// VerifierFunc adapts a function to [Verifier].
type VerifierFunc func(ctx context.Context, token string) (*Token, error)

// Verify calls f.
func (f VerifierFunc) Verify(ctx context.Context, token string) (*Token, error) { return f(ctx, token) }

// Token is what a [Verifier] learned from a valid access token.
type Token struct {
	// Principal is the caller: subject, client id and granted scopes.
	Principal catalog.Principal
	// Issuer is the authorization server that issued the token.
	Issuer string
	// Expiry is when the token stops being valid (zero for none).
	Expiry time.Time
	// Claims holds every claim of a JWT, or the introspection response.
	Claims map[string]any
}

// TokenInfo converts t for go-sdk, which hands it to tool handlers as
// req.Extra.TokenInfo. UserID is the subject; Extra carries "client_id",
// "iss" and "claims".
func (t *Token) TokenInfo() *auth.TokenInfo {
	return &auth.TokenInfo{
		Scopes:     t.Principal.Scopes,
		Expiration: t.Expiry,
		UserID:     t.Principal.Subject,
		Extra: map[string]any{
			"client_id": t.Principal.ClientID,
			"iss":       t.Issuer,
			"claims":    t.Claims,
		},
	}
}

// TokenError rejects a token. Its Description is short, specific and safe
// to send to the client in error_description; it never contains the token.
type TokenError struct {
	Description string
	// Err is the underlying cause, if any, for logs. It is not shown to
	// clients.
	Err error
}

// Error returns "invalid token: " followed by the description.
func (e *TokenError) Error() string { return "invalid token: " + e.Description }

// Unwrap returns [auth.ErrInvalidToken] and the cause, so errors.Is works
// for both and go-sdk maps the error to 401.
func (e *TokenError) Unwrap() []error {
	if e.Err == nil {
		return []error{auth.ErrInvalidToken}
	}
	return []error{auth.ErrInvalidToken, e.Err}
}

func invalid(desc string) error { return &TokenError{Description: desc} }

// DefaultClockSkew is the tolerance verifiers apply to a token's times
// unless told otherwise, and the one [RequireBearer] applies to expiry
// when the verifier is not a [ClockSkewer].
const DefaultClockSkew = 30 * time.Second

// ClaimNames says which claims (of a JWT, or members of an introspection
// response) carry the principal. Empty fields mean the verifier's
// defaults.
type ClaimNames struct {
	// Subject names the user claim. Default "sub".
	Subject string
	// ClientID lists claims tried in order for the client id. Default
	// "client_id" (RFC 9068 and RFC 7662); the JWT verifier then tries
	// "azp".
	ClientID []string
	// Scopes lists claims tried in order for the granted scopes; the first
	// present one wins. Each may be a space-separated string or an array of
	// strings. Default "scope" (RFC 9068 and RFC 7662); the JWT verifier
	// then tries "scp".
	Scopes []string
}

// sharedDefaults fills the options verifiers share (HTTP client,
// clock) and returns the clock skew to allow: DefaultClockSkew for zero,
// none for a negative value.
func sharedDefaults(skew time.Duration, client **http.Client, now *func() time.Time) time.Duration {
	if *client == nil {
		*client = fetch.DefaultHTTPClient
	}
	if *now == nil {
		*now = time.Now
	}
	switch {
	case skew == 0:
		return DefaultClockSkew
	case skew < 0:
		return 0
	}
	return skew
}

// fill sets the claim names left empty: "sub" for the subject, and the
// given defaults for the client id and scopes.
func (c *ClaimNames) fill(clientID, scopes []string) {
	if c.Subject == "" {
		c.Subject = "sub"
	}
	if len(c.ClientID) == 0 {
		c.ClientID = clientID
	}
	if len(c.Scopes) == 0 {
		c.Scopes = scopes
	}
}
