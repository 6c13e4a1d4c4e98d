package bearer

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
	"github.com/brakinglab/codemode-go/oauthmeta/internal/fetch"
)

// Defaults of [JWTOptions].
const (
	DefaultClockSkew          = 30 * time.Second
	DefaultKeyRefreshInterval = time.Minute
)

// DefaultAlgorithms are the signing algorithms accepted unless
// [JWTOptions.Algorithms] says otherwise.
var DefaultAlgorithms = []string{"RS256", "ES256", "EdDSA"}

// asymmetricAlgs are the algorithms a JWTVerifier may be configured with:
// never "none", never HMAC (an HMAC keyed with a public key is forgeable).
var asymmetricAlgs = []string{
	"RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
	"ES256", "ES384", "ES512", "EdDSA",
}

// ClaimNames says which JWT claims carry the principal. Empty fields mean
// the defaults.
type ClaimNames struct {
	// Subject names the user claim. Default "sub".
	Subject string
	// ClientID lists claims tried in order for the client id.
	// Default "client_id" (RFC 9068), then "azp".
	ClientID []string
	// Scopes lists claims tried in order for the granted scopes; the first
	// present one wins. Each may be a space-separated string or an array of
	// strings. Default "scope" (RFC 9068), then "scp".
	Scopes []string
}

// JWTOptions configures a [JWTVerifier]. The zero value is strict RFC 9068
// verification with the documented defaults.
type JWTOptions struct {
	// JWKSURL is where the issuer publishes its keys. Default: the jwks_uri
	// of the issuer's metadata (RFC 8414, then OpenID discovery), fetched on
	// first use.
	JWKSURL string
	// Algorithms lists accepted signing algorithms. Default
	// [DefaultAlgorithms]. "none" and HMAC algorithms are refused.
	Algorithms []string
	// ClockSkew is the tolerance applied to exp, nbf and iat. Default
	// [DefaultClockSkew]; a negative value means none.
	ClockSkew time.Duration
	// AcceptJWTType also accepts tokens whose header typ is "JWT" or absent,
	// for identity providers that do not send RFC 9068's "at+jwt". Tokens
	// carrying a nonce (ID tokens) are still refused.
	AcceptJWTType bool
	// Claims renames the claims the principal is read from.
	Claims ClaimNames
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

// JWTVerifier verifies JWT access tokens (RFC 9068) issued by one
// authorization server for one resource. Signature, issuer and expiry are
// checked by go-oidc; on top of that it enforces the header typ, the
// algorithm list, the audience, nbf and iat with the same clock skew, a
// subject, and rate-limited key refreshes. It is safe for concurrent use.
type JWTVerifier struct {
	issuer   string
	resource string
	opts     JWTOptions
	keys     *keySet
	oidc     *oidc.IDTokenVerifier
	skew     time.Duration
}

// NewJWTVerifier returns a verifier for tokens issued by issuer whose
// audience is resource, the canonical URI of this server's MCP endpoint
// (RFC 8707). It makes no network request; opts may be nil.
func NewJWTVerifier(issuer, resource string, opts *JWTOptions) (*JWTVerifier, error) {
	var o JWTOptions
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
	skew := sharedDefaults(o.ClockSkew, &o.HTTPClient, &o.Now)
	if o.KeyRefreshInterval <= 0 {
		o.KeyRefreshInterval = DefaultKeyRefreshInterval
	}
	o.Claims.fill([]string{"client_id", "azp"}, []string{"scope", "scp"})
	if o.JWKSURL != "" {
		if err := fetch.CheckHTTPSOrLoopback(o.JWKSURL); err != nil {
			return nil, fmt.Errorf("JWKSURL: %w", err)
		}
	}

	v := &JWTVerifier{issuer: issuer, resource: resource, opts: o, skew: skew}
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
func (v *JWTVerifier) jwksURL() func(context.Context) (string, error) {
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
func (v *JWTVerifier) ClockSkew() time.Duration { return v.skew }

// Resource returns the audience the verifier requires.
func (v *JWTVerifier) Resource() string { return v.resource }

// Verify checks token and returns its principal. Rejections are
// [*TokenError]s (wrapping auth.ErrInvalidToken); a key set or metadata
// that cannot be fetched gives an error wrapping [oauthmeta.ErrUnavailable].
//
// Cheap checks on the unverified claims run first, so a token for another
// issuer or audience, or an expired one, is refused without fetching keys.
// go-oidc then verifies the signature and re-checks issuer and expiry.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (*Token, error) {
	h, claims, err := parseUnverified(token)
	if err != nil {
		return nil, invalidCause("malformed token: not a signed JWT", err)
	}
	if !slices.Contains(v.opts.Algorithms, h.Alg) {
		return nil, invalid(fmt.Sprintf("signing algorithm %q is not accepted (accepted: %s)", clip(h.Alg), strings.Join(v.opts.Algorithms, ", ")))
	}
	if err := v.checkType(h.Typ, claims); err != nil {
		return nil, err
	}
	if err := v.checkClaims(claims); err != nil {
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
			return nil, invalidCause(fmt.Sprintf("token signed with an unknown key (kid %q)", clip(h.Kid)), err)
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
	return &Token{
		Principal: catalog.Principal{
			Subject:  stringClaim(verified, v.opts.Claims.Subject),
			ClientID: firstString(verified, v.opts.Claims.ClientID),
			Scopes:   scopes(verified, v.opts.Claims.Scopes),
		},
		Issuer: idt.Issuer,
		Expiry: idt.Expiry,
		Claims: verified,
	}, nil
}

// checkType enforces RFC 9068 §2.1: typ "at+jwt" (or its media type form).
func (v *JWTVerifier) checkType(typ string, claims map[string]any) error {
	t := strings.ToLower(typ)
	if t == "at+jwt" || t == "application/at+jwt" {
		return nil
	}
	if v.opts.AcceptJWTType && (t == "" || t == "jwt") {
		if _, ok := claims["nonce"]; ok {
			return invalid("ID tokens are not accepted: send an access token")
		}
		return nil
	}
	if typ == "" {
		return invalid(`token has no "typ" header: an RFC 9068 access token ("at+jwt") is required`)
	}
	return invalid(fmt.Sprintf(`token type %q is not accepted: an RFC 9068 access token ("at+jwt") is required`, clip(typ)))
}

// checkClaims checks issuer, audience, times and subject of the
// (not yet verified) claims.
func (v *JWTVerifier) checkClaims(c map[string]any) error {
	if iss, _ := c["iss"].(string); iss != v.issuer {
		return invalid(fmt.Sprintf("token issuer %q is not the trusted issuer %q", clip(iss), v.issuer))
	}
	aud, ok := audiences(c["aud"])
	if !ok || !matchAudience(aud, v.resource) {
		return invalid(fmt.Sprintf("token audience is not this resource: request a token for resource %q", v.resource))
	}
	now := v.opts.Now()
	exp, ok := numericDate(c, "exp")
	switch {
	case !ok:
		return invalid(`token has no valid "exp" claim`)
	case exp.Before(now.Add(-v.skew)): // the same comparison go-oidc makes
		return invalid("token expired")
	}
	if nbf, ok := numericDate(c, "nbf"); ok && now.Add(v.skew).Before(nbf) {
		return invalid("token not yet valid (nbf is in the future)")
	} else if !ok && c["nbf"] != nil {
		return invalid(`token has a malformed "nbf" claim`)
	}
	if iat, ok := numericDate(c, "iat"); ok && now.Add(v.skew).Before(iat) {
		return invalid("token issued in the future (iat)")
	} else if !ok && c["iat"] != nil {
		return invalid(`token has a malformed "iat" claim`)
	}
	if stringClaim(c, v.opts.Claims.Subject) == "" {
		return invalid(fmt.Sprintf("token has no %q claim", v.opts.Claims.Subject))
	}
	return nil
}

// clip shortens a value taken from an untrusted token before it is echoed
// in an error description.
func clip(s string) string {
	const limit = 64
	if len(s) <= limit {
		return s
	}
	return strings.ToValidUTF8(s[:limit], "") + "..."
}

// Issuer returns the issuer the verifier requires.
func (v *JWTVerifier) Issuer() string { return v.issuer }
