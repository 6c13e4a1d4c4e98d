package oauthmeta

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/brakinglab/codemode-go/oauthmeta/internal/fetch"
)

// ErrUnavailable is wrapped by errors caused by the server's side rather
// than by a token or a request: the issuer's metadata or key set cannot be
// fetched. Verifiers in oauthmeta/bearer wrap it too, so a caller can tell
// "try again later" from "this token is bad".
var ErrUnavailable = errors.New("token verification temporarily unavailable")

// MetadataURLs lists where an issuer's metadata may live, in the order
// [FetchIssuerMetadata] tries them: RFC 8414 (with path insertion for an
// issuer with a path), then OpenID Connect discovery (path insertion, then
// path appending).
func MetadataURLs(issuer string) ([]string, error) {
	u, err := fetch.CheckIssuer(issuer)
	if err != nil {
		return nil, err
	}
	p := strings.TrimSuffix(u.Path, "/")
	at := func(path string) string {
		c := *u
		c.Path = path
		return c.String()
	}
	if p == "" {
		return []string{
			at("/.well-known/oauth-authorization-server"),
			at("/.well-known/openid-configuration"),
		}, nil
	}
	return []string{
		at("/.well-known/oauth-authorization-server" + p),
		at("/.well-known/openid-configuration" + p),
		at(p + "/.well-known/openid-configuration"),
	}, nil
}

// FetchIssuerMetadata fetches the metadata of an external authorization
// server: RFC 8414 first, then OpenID discovery (see [MetadataURLs]). The
// document's issuer must equal issuer exactly (RFC 8414 §3.3) and its
// jwks_uri, if any, must be https or loopback. client may be nil.
//
// Unlike go-sdk's client-side lookup it does not insist on PKCE support:
// a resource server only needs the issuer and its keys.
func FetchIssuerMetadata(ctx context.Context, issuer string, client *http.Client) (*oauthex.AuthServerMeta, error) {
	urls, err := MetadataURLs(issuer)
	if err != nil {
		return nil, err
	}
	if client == nil {
		client = fetch.DefaultHTTPClient
	}
	var errs []error
	for _, u := range urls {
		var meta oauthex.AuthServerMeta
		status, err := fetch.GetJSON(ctx, client, u, &meta)
		if err != nil {
			if status >= 400 && status < 500 {
				continue // not served here; try the next location
			}
			errs = append(errs, err)
			continue
		}
		if meta.Issuer != issuer {
			return nil, fmt.Errorf("metadata at %s names issuer %q, want %q", u, meta.Issuer, issuer)
		}
		if meta.JWKSURI != "" {
			if err := fetch.CheckHTTPSOrLoopback(meta.JWKSURI); err != nil {
				return nil, fmt.Errorf("metadata at %s: jwks_uri: %w", u, err)
			}
		}
		return &meta, nil
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: issuer %s: %w", ErrUnavailable, issuer, errors.Join(errs...))
	}
	return nil, fmt.Errorf("%w: issuer %s serves no RFC 8414 or OpenID metadata", ErrUnavailable, issuer)
}

// MetadataCacheOptions configures a [MetadataCache]. Zero values mean the
// documented defaults.
type MetadataCacheOptions struct {
	// HTTPClient fetches metadata. Default: a client with a 10 s timeout.
	HTTPClient *http.Client
	// TTL is how long fetched metadata is reused. Default: 1 hour.
	TTL time.Duration
	// RetryAfter is how long a failed fetch is remembered before the next
	// attempt, so an unreachable issuer is not hammered. Default: 30 s.
	RetryAfter time.Duration
	// Now returns the current time. Default: time.Now.
	Now func() time.Time
}

// MetadataCache fetches external issuers' metadata with
// [FetchIssuerMetadata] and caches it. It is safe for concurrent use;
// concurrent misses for one issuer share a single fetch.
type MetadataCache struct {
	opts MetadataCacheOptions

	mu      sync.Mutex
	entries map[string]*cacheEntry
}

type cacheEntry struct {
	mu      sync.Mutex // held while fetching
	meta    *oauthex.AuthServerMeta
	err     error
	fetched time.Time
}

// NewMetadataCache returns an empty cache. opts may be nil.
func NewMetadataCache(opts *MetadataCacheOptions) *MetadataCache {
	var o MetadataCacheOptions
	if opts != nil {
		o = *opts
	}
	if o.HTTPClient == nil {
		o.HTTPClient = fetch.DefaultHTTPClient
	}
	if o.TTL <= 0 {
		o.TTL = time.Hour
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = 30 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &MetadataCache{opts: o, entries: map[string]*cacheEntry{}}
}

// Get returns issuer's metadata, from the cache when it is fresh. A recent
// failure is returned again without a new request until RetryAfter has
// passed. The returned value is shared: do not modify it.
func (c *MetadataCache) Get(ctx context.Context, issuer string) (*oauthex.AuthServerMeta, error) {
	c.mu.Lock()
	e := c.entries[issuer]
	if e == nil {
		e = &cacheEntry{}
		c.entries[issuer] = e
	}
	c.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	now := c.opts.Now()
	if !e.fetched.IsZero() {
		age := now.Sub(e.fetched)
		if e.err == nil && age < c.opts.TTL {
			return e.meta, nil
		}
		if e.err != nil && age < c.opts.RetryAfter {
			return nil, e.err
		}
	}
	meta, err := FetchIssuerMetadata(ctx, issuer, c.opts.HTTPClient)
	if err != nil && ctx.Err() != nil {
		return nil, err // the caller gave up; that says nothing about the issuer
	}
	if err != nil && e.meta != nil && errors.Is(err, ErrUnavailable) {
		// Keep serving stale metadata while the issuer is unreachable.
		e.fetched = now.Add(c.opts.RetryAfter - c.opts.TTL)
		return e.meta, nil
	}
	e.meta, e.err, e.fetched = meta, err, now
	return meta, err
}
