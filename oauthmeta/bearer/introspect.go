package bearer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/oauthmeta"
	"github.com/brakinglab/codemode-go/oauthmeta/internal/claims"
	"github.com/brakinglab/codemode-go/oauthmeta/internal/fetch"
)

// IntrospectionOptions configures an [IntrospectionVerifier]. Zero values
// mean the documented defaults.
type IntrospectionOptions struct {
	// Endpoint is the RFC 7662 introspection endpoint. Default: the
	// introspection_endpoint of the issuer's metadata, fetched on first use.
	Endpoint string
	// ClientID and ClientSecret authenticate this resource server to the
	// endpoint with HTTP Basic (RFC 7662 §2.1 requires some authentication).
	ClientID, ClientSecret string
	// AllowMissingAudience accepts an active token whose response has no
	// "aud", for authorization servers that do not return one. A present
	// "aud" must always name the resource.
	AllowMissingAudience bool
	// ClockSkew is the tolerance applied to exp and nbf. Default
	// [DefaultClockSkew]; negative means none.
	ClockSkew time.Duration
	// Claims renames the response members the principal is read from;
	// the defaults are RFC 7662's sub, client_id and scope.
	Claims ClaimNames
	// HTTPClient calls the endpoint. Default: a client with a 10 s timeout.
	HTTPClient *http.Client
	// Now returns the current time. Default time.Now.
	Now func() time.Time
	// CacheTTL is how long an answer (active or not) is reused for the same
	// token, never past an active token's expiry, so a revocation takes
	// effect within it. Default [DefaultIntrospectionCacheTTL]; negative
	// turns the cache off.
	CacheTTL time.Duration
}

// DefaultIntrospectionCacheTTL is the default [IntrospectionOptions.CacheTTL].
const DefaultIntrospectionCacheTTL = 30 * time.Second

// Bounds on the introspection cache and on calls in flight.
const (
	maxIntrospectionCache    = 10000
	maxIntrospectionInFlight = 16
)

type introspected struct {
	tok   *Token
	err   error
	until time.Time
}

// IntrospectionVerifier verifies opaque access tokens by asking the
// authorization server (RFC 7662). Answers are cached for
// IntrospectionOptions.CacheTTL per token (by its SHA-256), and at most 16
// calls run at once, so a flood of requests cannot become a flood of calls
// to the authorization server. It is safe for concurrent use.
type IntrospectionVerifier struct {
	issuer, resource string
	opts             IntrospectionOptions
	skew             time.Duration
	meta             *oauthmeta.MetadataCache

	inFlight chan struct{}
	mu       sync.Mutex
	cache    map[[32]byte]introspected
}

// NewIntrospectionVerifier returns a verifier for tokens issued by issuer
// for resource. It makes no network request; opts may be nil.
func NewIntrospectionVerifier(issuer, resource string, opts *IntrospectionOptions) (*IntrospectionVerifier, error) {
	var o IntrospectionOptions
	if opts != nil {
		o = *opts
	}
	if err := fetch.CheckIssuerAndResource(issuer, resource); err != nil {
		return nil, err
	}
	if o.Endpoint != "" {
		if err := fetch.CheckHTTPSOrLoopback(o.Endpoint); err != nil {
			return nil, fmt.Errorf("introspection endpoint: %w", err)
		}
	}
	if o.ClientID == "" {
		return nil, errors.New("a ClientID is required: introspection endpoints authenticate their callers")
	}
	skew := sharedDefaults(o.ClockSkew, &o.HTTPClient, &o.Now)
	o.Claims.fill([]string{"client_id"}, []string{"scope"})
	if o.CacheTTL == 0 {
		o.CacheTTL = DefaultIntrospectionCacheTTL
	}
	v := &IntrospectionVerifier{issuer: issuer, resource: resource, opts: o, skew: skew,
		inFlight: make(chan struct{}, maxIntrospectionInFlight), cache: map[[32]byte]introspected{}}
	if o.Endpoint == "" {
		v.meta = oauthmeta.NewMetadataCache(&oauthmeta.MetadataCacheOptions{HTTPClient: o.HTTPClient, Now: o.Now})
	}
	return v, nil
}

// ClockSkew returns the tolerance applied to exp and nbf.
func (v *IntrospectionVerifier) ClockSkew() time.Duration { return v.skew }

// Issuer returns the issuer the verifier requires.
func (v *IntrospectionVerifier) Issuer() string { return v.issuer }

// Resource returns the audience the verifier requires.
func (v *IntrospectionVerifier) Resource() string { return v.resource }

// Verify asks the introspection endpoint about token. An inactive token,
// or one for another issuer or audience, is a [*TokenError]; an endpoint
// that cannot be reached or answers badly gives an error wrapping
// [oauthmeta.ErrUnavailable].
func (v *IntrospectionVerifier) Verify(ctx context.Context, token string) (*Token, error) {
	if v.opts.CacheTTL < 0 {
		return v.introspect(ctx, token)
	}
	key := sha256.Sum256([]byte(token))
	now := v.opts.Now()
	v.mu.Lock()
	e, ok := v.cache[key]
	v.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.copy()
	}
	tok, err := v.introspect(ctx, token)
	var te *TokenError
	if err != nil && !errors.As(err, &te) {
		return nil, err // unavailable or cancelled: says nothing about the token
	}
	e = introspected{tok: tok, err: err, until: now.Add(v.opts.CacheTTL)}
	if tok != nil && !tok.Expiry.IsZero() && tok.Expiry.Before(e.until) {
		e.until = tok.Expiry
	}
	v.mu.Lock()
	if len(v.cache) >= maxIntrospectionCache {
		for k, x := range v.cache {
			if !now.Before(x.until) {
				delete(v.cache, k)
			}
		}
		if len(v.cache) >= maxIntrospectionCache {
			clear(v.cache)
		}
	}
	v.cache[key] = e
	v.mu.Unlock()
	return e.copy()
}

// copy returns the cached answer; callers get their own Token.
func (e introspected) copy() (*Token, error) {
	if e.tok == nil {
		return nil, e.err
	}
	t := *e.tok
	t.Principal.Scopes = slices.Clone(t.Principal.Scopes)
	t.Claims = maps.Clone(t.Claims)
	return &t, nil
}

// introspect asks the authorization server about token.
func (v *IntrospectionVerifier) introspect(ctx context.Context, token string) (*Token, error) {
	select {
	case v.inFlight <- struct{}{}:
		defer func() { <-v.inFlight }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	endpoint, err := v.endpoint(ctx)
	if err != nil {
		return nil, err
	}
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(v.opts.ClientID), url.QueryEscape(v.opts.ClientSecret))
	resp, err := v.opts.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: introspection: %w", oauthmeta.ErrUnavailable, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, fetch.MaxDocumentBytes))
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: introspection answered %s", oauthmeta.ErrUnavailable, resp.Status)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var c map[string]any
	if err := dec.Decode(&c); err != nil || c == nil {
		return nil, fmt.Errorf("%w: introspection response is not a JSON object", oauthmeta.ErrUnavailable)
	}
	return v.check(c)
}

func (v *IntrospectionVerifier) check(c map[string]any) (*Token, error) {
	if active, _ := c["active"].(bool); !active {
		return nil, invalid("token is not active (revoked, expired or unknown)")
	}
	if iss, ok := c["iss"].(string); ok && iss != v.issuer {
		return nil, invalid(fmt.Sprintf("token issuer %q is not the trusted issuer %q", claims.Clip(iss), v.issuer))
	}
	if _, present := c["aud"]; present || !v.opts.AllowMissingAudience {
		aud, ok := claims.Audiences(c["aud"])
		if !ok || !claims.MatchAudience(aud, v.resource) {
			return nil, invalid(fmt.Sprintf("token audience is not this resource: request a token for resource %q", v.resource))
		}
	}
	now := v.opts.Now()
	exp, hasExp := claims.NumericDate(c, "exp")
	if hasExp && exp.Before(now.Add(-v.skew)) {
		return nil, invalid("token expired")
	}
	if nbf, ok := claims.NumericDate(c, "nbf"); ok && now.Add(v.skew).Before(nbf) {
		return nil, invalid("token not yet valid (nbf is in the future)")
	}
	sub := claims.String(c, v.opts.Claims.Subject)
	if sub == "" {
		return nil, invalid(fmt.Sprintf("token has no %q", v.opts.Claims.Subject))
	}
	t := &Token{
		Principal: catalog.Principal{
			Subject:  sub,
			ClientID: claims.FirstString(c, v.opts.Claims.ClientID),
			Scopes:   claims.Scopes(c, v.opts.Claims.Scopes),
		},
		Issuer: claims.String(c, "iss"),
		Claims: c,
	}
	if t.Issuer == "" {
		t.Issuer = v.issuer
	}
	if hasExp {
		t.Expiry = exp
	}
	return t, nil
}

func (v *IntrospectionVerifier) endpoint(ctx context.Context) (string, error) {
	if v.opts.Endpoint != "" {
		return v.opts.Endpoint, nil
	}
	meta, err := v.meta.Get(ctx, v.issuer)
	if err != nil {
		return "", fmt.Errorf("%w: %w", oauthmeta.ErrUnavailable, err)
	}
	if meta.IntrospectionEndpoint == "" {
		return "", fmt.Errorf("%w: issuer %s advertises no introspection_endpoint", oauthmeta.ErrUnavailable, v.issuer)
	}
	if err := fetch.CheckHTTPSOrLoopback(meta.IntrospectionEndpoint); err != nil {
		return "", fmt.Errorf("%w: introspection_endpoint: %w", oauthmeta.ErrUnavailable, err)
	}
	return meta.IntrospectionEndpoint, nil
}
