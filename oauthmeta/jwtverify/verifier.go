// Package jwtverify verifies JWT access tokens (RFC 9068) for
// oauthmeta/bearer: a [Verifier] is a bearer.Verifier, given to
// bearer.RequireBearer or codemode.Auth.Verifier:
//
//	v, err := jwtverify.New(issuer, resource, nil)
//
// Signature, issuer and expiry are checked by go-oidc over go-jose; on
// top of that it enforces the header typ ("at+jwt"), the algorithm list
// (asymmetric only: never "none" or HMAC), the exact audience (RFC 8707),
// nbf and iat with the same clock skew, a subject, and a key set that
// re-fetches at most once per interval however many forged tokens arrive.
// Errors caused by the token are *bearer.TokenError; errors caused by the
// server's side (keys or metadata that cannot be fetched) wrap
// oauthmeta.ErrUnavailable.
//
// It is a module of its own (github.com/brakinglab/codemode-go/oauthmeta/jwtverify)
// so that go-oidc and go-jose stay out of the module graph of services
// that verify tokens otherwise (bearer.IntrospectionVerifier, their own
// bearer.Verifier) or not at all.
package jwtverify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/go-jose/go-jose/v4"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/oauthmeta"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
	"github.com/brakinglab/codemode-go/oauthmeta/internal/claims"
	"github.com/brakinglab/codemode-go/oauthmeta/internal/fetch"
)

// DefaultKeyRefreshInterval is the default [Options.KeyRefreshInterval].
const DefaultKeyRefreshInterval = time.Minute

// DefaultAlgorithms are the signing algorithms accepted unless
// [Options.Algorithms] says otherwise.
var DefaultAlgorithms = []string{"RS256", "ES256", "EdDSA"}

// asymmetricAlgs are the algorithms a Verifier may be configured with:
// never "none", never HMAC (an HMAC keyed with a public key is forgeable).
var asymmetricAlgs = []string{
	"RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
	"ES256", "ES384", "ES512", "EdDSA",
}

// Options configures a [Verifier]. The zero value is strict RFC 9068
// verification with the documented defaults.
type Options struct {
	// JWKSURL is where the issuer publishes its keys. Default: the jwks_uri
	// of the issuer's metadata (RFC 8414, then OpenID discovery), fetched on
	// first use.
	JWKSURL string
	// Algorithms lists accepted signing algorithms. Default
	// [DefaultAlgorithms]. "none" and HMAC algorithms are refused.
	Algorithms []string
	// ClockSkew is the tolerance applied to exp, nbf and iat. Default
	// bearer.DefaultClockSkew; a negative value means none.
	ClockSkew time.Duration
	// AcceptJWTType also accepts tokens whose header typ is "JWT" or absent,
	// for identity providers that do not send RFC 9068's "at+jwt". Tokens
	// carrying a nonce (ID tokens) are still refused.
	AcceptJWTType bool
	// Claims renames the claims the principal is read from. Defaults:
	// "sub"; "client_id" (RFC 9068), then "azp"; "scope" (RFC 9068),
	// then "scp".
	Claims bearer.ClaimNames
	// KeyRefreshInterval is the least time between two fetches of the key
	// set (and of the issuer's metadata when it is discovered), however many
	// tokens with unknown key ids arrive. A failed fetch is not retried
	// sooner either (requests meanwhile get oauthmeta.ErrUnavailable when no keys are
	// cached). Default [DefaultKeyRefreshInterval].
	KeyRefreshInterval time.Duration
	// HTTPClient fetches metadata and keys. Default: a client with a 10 s
	// timeout.
	HTTPClient *http.Client
	// Now returns the current time. Default time.Now.
	Now func() time.Time
}

// Verifier verifies JWT access tokens (RFC 9068) issued by one
// authorization server for one resource. Signature, issuer and expiry are
// checked by go-oidc; on top of that it enforces the header typ, the
// algorithm list, the audience, nbf and iat with the same clock skew, a
// subject, and rate-limited key refreshes. It is a bearer.Verifier and a
// bearer.ClockSkewer, and safe for concurrent use.
type Verifier struct {
	issuer   string
	resource string
	opts     Options
	keys     *keySet
	oidc     *oidc.IDTokenVerifier
	skew     time.Duration
}

var (
	_ bearer.Verifier    = (*Verifier)(nil)
	_ bearer.ClockSkewer = (*Verifier)(nil)
)

// New returns a verifier for tokens issued by issuer whose audience is
// resource, the canonical URI of this server's MCP endpoint (RFC 8707).
// It makes no network request; opts may be nil.
func New(issuer, resource string, opts *Options) (*Verifier, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := fetch.CheckIssuerAndResource(issuer, resource); err != nil {
		return nil, err
	}
	if len(o.Algorithms) == 0 {
		o.Algorithms = DefaultAlgorithms
	}
	for _, a := range o.Algorithms {
		if !slices.Contains(asymmetricAlgs, a) {
			return nil, fmt.Errorf("algorithm %q is not allowed: use asymmetric algorithms such as RS256, ES256 or EdDSA", a)
		}
	}
	o.Algorithms = slices.Clone(o.Algorithms)
	if o.HTTPClient == nil {
		o.HTTPClient = fetch.DefaultHTTPClient
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	skew := o.ClockSkew
	switch {
	case skew == 0:
		skew = bearer.DefaultClockSkew
	case skew < 0:
		skew = 0
	}
	if o.KeyRefreshInterval <= 0 {
		o.KeyRefreshInterval = DefaultKeyRefreshInterval
	}
	if o.Claims.Subject == "" {
		o.Claims.Subject = "sub"
	}
	if len(o.Claims.ClientID) == 0 {
		o.Claims.ClientID = []string{"client_id", "azp"}
	}
	if len(o.Claims.Scopes) == 0 {
		o.Claims.Scopes = []string{"scope", "scp"}
	}
	if o.JWKSURL != "" {
		if err := fetch.CheckHTTPSOrLoopback(o.JWKSURL); err != nil {
			return nil, fmt.Errorf("JWKSURL: %w", err)
		}
	}

	v := &Verifier{issuer: issuer, resource: resource, opts: o, skew: skew}
	algs := make([]jose.SignatureAlgorithm, len(o.Algorithms))
	for i, a := range o.Algorithms {
		algs[i] = jose.SignatureAlgorithm(a)
	}
	v.keys = &keySet{
		jwksURL:  v.jwksURL(),
		client:   o.HTTPClient,
		algs:     algs,
		interval: o.KeyRefreshInterval,
		now:      o.Now,
	}
	v.oidc = oidc.NewVerifier(issuer, v.keys, &oidc.Config{
		// The audience is checked by matchAudience, which also accepts the
		// empty-path form of a root resource.
		SkipClientIDCheck:    true,
		SupportedSigningAlgs: o.Algorithms,
		// go-oidc has no skew option for exp: shift its clock back instead.
		Now: func() time.Time { return o.Now().Add(-skew) },
	})
	return v, nil
}

// jwksURL returns the resolver for the key set's location.
func (v *Verifier) jwksURL() func(context.Context) (string, error) {
	if v.opts.JWKSURL != "" {
		u := v.opts.JWKSURL
		return func(context.Context) (string, error) { return u, nil }
	}
	cache := oauthmeta.NewMetadataCache(&oauthmeta.MetadataCacheOptions{
		HTTPClient: v.opts.HTTPClient,
		RetryAfter: v.opts.KeyRefreshInterval,
		Now:        v.opts.Now,
	})
	return func(ctx context.Context) (string, error) {
		meta, err := cache.Get(ctx, v.issuer)
		if err != nil {
			if !errors.Is(err, oauthmeta.ErrUnavailable) {
				err = fmt.Errorf("%w: %w", oauthmeta.ErrUnavailable, err)
			}
			return "", err
		}
		if meta.JWKSURI == "" {
			return "", fmt.Errorf("%w: issuer %s publishes no jwks_uri", oauthmeta.ErrUnavailable, v.issuer)
		}
		return meta.JWKSURI, nil
	}
}

// ClockSkew returns the tolerance the verifier applies to exp, nbf and iat.
func (v *Verifier) ClockSkew() time.Duration { return v.skew }

// Resource returns the audience the verifier requires.
func (v *Verifier) Resource() string { return v.resource }

// Verify checks token and returns its principal. Rejections are
// [*bearer.TokenError]s (wrapping auth.ErrInvalidToken); a key set or metadata
// that cannot be fetched gives an error wrapping [oauthmeta.ErrUnavailable].
//
// Cheap checks on the unverified claims run first, so a token for another
// issuer or audience, or an expired one, is refused without fetching keys.
// go-oidc then verifies the signature and re-checks issuer and expiry.
func (v *Verifier) Verify(ctx context.Context, token string) (*bearer.Token, error) {
	h, unverified, err := claims.ParseUnverified(token)
	if err != nil {
		return nil, invalidCause("malformed token: not a signed JWT", err)
	}
	if !slices.Contains(v.opts.Algorithms, h.Alg) {
		return nil, invalid(fmt.Sprintf("signing algorithm %q is not accepted (accepted: %s)", claims.Clip(h.Alg), strings.Join(v.opts.Algorithms, ", ")))
	}
	if err := v.checkType(h.Typ, unverified); err != nil {
		return nil, err
	}
	if err := v.checkClaims(unverified); err != nil {
		return nil, err
	}

	res := &sigResult{}
	idt, err := v.oidc.Verify(context.WithValue(ctx, sigResultKey{}, res), token)
	if err != nil {
		var expired *oidc.TokenExpiredError
		switch {
		case errors.As(err, &expired):
			return nil, invalidCause("token expired", err)
		case errors.Is(res.err, oauthmeta.ErrUnavailable):
			return nil, res.err
		case errors.Is(res.err, errUnknownKey):
			return nil, invalidCause(fmt.Sprintf("token signed with an unknown key (kid %q)", claims.Clip(h.Kid)), err)
		case errors.Is(res.err, errBadSignature):
			return nil, invalidCause("token signature is invalid", err)
		case res.err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		}
		return nil, invalidCause("token rejected", err)
	}
	var verified map[string]any
	if err := idt.Claims(&verified); err != nil {
		return nil, invalidCause("malformed token claims", err)
	}
	return &bearer.Token{
		Principal: catalog.Principal{
			Subject:  claims.String(verified, v.opts.Claims.Subject),
			ClientID: claims.FirstString(verified, v.opts.Claims.ClientID),
			Scopes:   claims.Scopes(verified, v.opts.Claims.Scopes),
		},
		Issuer: idt.Issuer,
		Expiry: idt.Expiry,
		Claims: verified,
	}, nil
}

// checkType enforces RFC 9068 §2.1: typ "at+jwt" (or its media type form).
func (v *Verifier) checkType(typ string, unverified map[string]any) error {
	t := strings.ToLower(typ)
	if t == "at+jwt" || t == "application/at+jwt" {
		return nil
	}
	if v.opts.AcceptJWTType && (t == "" || t == "jwt") {
		if _, ok := unverified["nonce"]; ok {
			return invalid("ID tokens are not accepted: send an access token")
		}
		return nil
	}
	if typ == "" {
		return invalid(`token has no "typ" header: an RFC 9068 access token ("at+jwt") is required`)
	}
	return invalid(fmt.Sprintf(`token type %q is not accepted: an RFC 9068 access token ("at+jwt") is required`, claims.Clip(typ)))
}

// checkClaims checks issuer, audience, times and subject of the
// (not yet verified) claims.
func (v *Verifier) checkClaims(c map[string]any) error {
	if iss, _ := c["iss"].(string); iss != v.issuer {
		return invalid(fmt.Sprintf("token issuer %q is not the trusted issuer %q", claims.Clip(iss), v.issuer))
	}
	aud, ok := claims.Audiences(c["aud"])
	if !ok || !claims.MatchAudience(aud, v.resource) {
		return invalid(fmt.Sprintf("token audience is not this resource: request a token for resource %q", v.resource))
	}
	now := v.opts.Now()
	exp, ok := claims.NumericDate(c, "exp")
	switch {
	case !ok:
		return invalid(`token has no valid "exp" claim`)
	case exp.Before(now.Add(-v.skew)): // the same comparison go-oidc makes
		return invalid("token expired")
	}
	if nbf, ok := claims.NumericDate(c, "nbf"); ok && now.Add(v.skew).Before(nbf) {
		return invalid("token not yet valid (nbf is in the future)")
	} else if !ok && c["nbf"] != nil {
		return invalid(`token has a malformed "nbf" claim`)
	}
	if iat, ok := claims.NumericDate(c, "iat"); ok && now.Add(v.skew).Before(iat) {
		return invalid("token issued in the future (iat)")
	} else if !ok && c["iat"] != nil {
		return invalid(`token has a malformed "iat" claim`)
	}
	if claims.String(c, v.opts.Claims.Subject) == "" {
		return invalid(fmt.Sprintf("token has no %q claim", v.opts.Claims.Subject))
	}
	return nil
}

// Issuer returns the issuer the verifier requires.
func (v *Verifier) Issuer() string { return v.issuer }

func invalid(desc string) error { return &bearer.TokenError{Description: desc} }

func invalidCause(desc string, cause error) error {
	return &bearer.TokenError{Description: desc, Err: cause}
}
