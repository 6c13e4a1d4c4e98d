// Package oauthmetatest runs a small OAuth authorization server on loopback
// for tests: it serves a JWKS and RFC 8414 / OpenID discovery metadata,
// mints RS256, ES256 and EdDSA access tokens (and deliberately broken ones),
// and counts how often its JWKS is fetched.
//
// It is a test helper: keys are generated per issuer and nothing is
// persisted.
package oauthmetatest

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Key IDs of the issuer's signing keys, as published in its JWKS.
const (
	KidRSA     = "rsa-1"
	KidEC      = "ec-1"
	KidEd25519 = "ed-1"
)

// Options configures [NewIssuer]. The zero value is a root-path issuer that
// serves both RFC 8414 and OpenID discovery metadata.
type Options struct {
	// Path is appended to the server's origin to form the issuer identifier,
	// e.g. "/tenant" gives "http://127.0.0.1:port/tenant". Metadata is then
	// served at the RFC 8414 path-inserted location.
	Path string
	// NoRFC8414 serves only OpenID discovery, like an IdP that lacks
	// RFC 8414 metadata.
	NoRFC8414 bool
	// ScopesSupported is advertised in the metadata.
	ScopesSupported []string
}

// Issuer is a running test authorization server.
type Issuer struct {
	// URL is the issuer identifier (the "iss" of minted tokens).
	URL string
	// JWKSURL is where the issuer publishes its public keys.
	JWKSURL string

	tb       testing.TB
	srv      *httptest.Server
	opts     Options
	rsaKey   *rsa.PrivateKey
	ecKey    *ecdsa.PrivateKey
	edKey    ed25519.PrivateKey
	jwks     atomic.Int64
	metadata atomic.Int64

	mu      sync.Mutex
	codes   map[string]codeGrant
	minted  map[string]map[string]any // token → claims, for introspection
	revoked map[string]bool
	closed  bool
}

// NewIssuer starts an issuer on a loopback port and stops it when the test
// ends. opts may be nil.
func NewIssuer(tb testing.TB, opts *Options) *Issuer {
	tb.Helper()
	iss, err := Start(opts)
	if err != nil {
		tb.Fatalf("oauthmetatest: %v", err)
	}
	iss.tb = tb
	tb.Cleanup(iss.Close)
	return iss
}

// Start starts an issuer without a testing.TB, for examples and benchmarks
// that manage its lifetime themselves; call Close when done. Mint panics
// on failure for an issuer started this way.
func Start(opts *Options) (*Issuer, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Path != "" && !strings.HasPrefix(o.Path, "/") {
		return nil, fmt.Errorf("option Path %q must start with /", o.Path)
	}
	o.Path = strings.TrimSuffix(o.Path, "/")
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	iss := &Issuer{opts: o, rsaKey: rsaKey, ecKey: ecKey, edKey: edKey, codes: map[string]codeGrant{}, minted: map[string]map[string]any{}, revoked: map[string]bool{}}
	iss.srv = httptest.NewServer(iss.routes())
	iss.URL = iss.srv.URL + o.Path
	iss.JWKSURL = iss.URL + "/jwks"
	return iss, nil
}

// Close stops the server. It is safe to call more than once.
func (i *Issuer) Close() {
	i.mu.Lock()
	closed := i.closed
	i.closed = true
	i.mu.Unlock()
	if !closed {
		i.srv.Close()
	}
}

// Client returns an HTTP client for the issuer's server.
func (i *Issuer) Client() *http.Client { return i.srv.Client() }

// JWKSFetches reports how many times the JWKS has been served.
func (i *Issuer) JWKSFetches() int64 { return i.jwks.Load() }

// MetadataFetches reports how many times a metadata document has been served.
func (i *Issuer) MetadataFetches() int64 { return i.metadata.Load() }

// Metadata returns the RFC 8414 metadata the issuer serves.
func (i *Issuer) Metadata() *oauthex.AuthServerMeta {
	return &oauthex.AuthServerMeta{
		Issuer:                            i.URL,
		AuthorizationEndpoint:             i.URL + "/authorize",
		TokenEndpoint:                     i.URL + "/token",
		JWKSURI:                           i.JWKSURL,
		ScopesSupported:                   i.opts.ScopesSupported,
		ResponseTypesSupported:            []string{"code"},
		GrantTypesSupported:               []string{"authorization_code"},
		TokenEndpointAuthMethodsSupported: []string{"none"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		IntrospectionEndpoint:             i.URL + "/introspect",
	}
}

// RSAPublicKey returns the public half of the RS256 signing key.
func (i *Issuer) RSAPublicKey() *rsa.PublicKey { return &i.rsaKey.PublicKey }

func (i *Issuer) routes() http.Handler {
	mux := http.NewServeMux()
	p := i.opts.Path
	meta := http.HandlerFunc(i.serveMetadata)
	if !i.opts.NoRFC8414 {
		mux.Handle("GET /.well-known/oauth-authorization-server"+p, meta)
	}
	if p == "" {
		mux.Handle("GET /.well-known/openid-configuration", meta)
	} else {
		mux.Handle("GET "+p+"/.well-known/openid-configuration", meta)
	}
	mux.HandleFunc("GET "+p+"/jwks", i.serveJWKS)
	mux.HandleFunc("POST "+p+"/token", i.serveToken)
	mux.HandleFunc("POST "+p+"/introspect", i.serveIntrospect)
	return mux
}

func (i *Issuer) serveMetadata(w http.ResponseWriter, r *http.Request) {
	i.metadata.Add(1)
	writeJSON(w, http.StatusOK, i.Metadata())
}

func (i *Issuer) serveJWKS(w http.ResponseWriter, r *http.Request) {
	i.jwks.Add(1)
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &i.rsaKey.PublicKey, KeyID: KidRSA, Algorithm: "RS256", Use: "sig"},
		{Key: &i.ecKey.PublicKey, KeyID: KidEC, Algorithm: "ES256", Use: "sig"},
		{Key: i.edKey.Public(), KeyID: KidEd25519, Algorithm: "EdDSA", Use: "sig"},
	}}
	writeJSON(w, http.StatusOK, set)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
