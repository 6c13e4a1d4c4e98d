// Package oauthmetatest runs a small OAuth authorization server on loopback
// for tests: it serves a JWKS and RFC 8414 / OpenID discovery metadata,
// mints RS256, ES256 and EdDSA access tokens (and deliberately broken ones),
// answers RFC 7662 introspection ([Issuer.Verifier] uses it),
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
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
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
	writeJSON(w, http.StatusOK, i.jwkSet())
}

// jwkSet is the issuer's public keys as an RFC 7517 JWK Set.
func (i *Issuer) jwkSet() map[string]any {
	b64 := base64.RawURLEncoding.EncodeToString
	rsaPub := &i.rsaKey.PublicKey
	ecPub, err := i.ecKey.PublicKey.Bytes() // 0x04 || X || Y, 32 bytes each on P-256
	if err != nil {
		panic(err) // a P-256 key made by Start
	}
	return map[string]any{"keys": []map[string]string{
		{"kty": "RSA", "kid": KidRSA, "alg": "RS256", "use": "sig",
			"n": b64(rsaPub.N.Bytes()), "e": b64(big.NewInt(int64(rsaPub.E)).Bytes())},
		{"kty": "EC", "kid": KidEC, "alg": "ES256", "use": "sig", "crv": "P-256",
			"x": b64(ecPub[1:33]), "y": b64(ecPub[33:])},
		{"kty": "OKP", "kid": KidEd25519, "alg": "EdDSA", "use": "sig", "crv": "Ed25519",
			"x": b64(i.edKey.Public().(ed25519.PublicKey))},
	}}
}

// Verifier returns a verifier of the tokens this issuer minted for
// resource, for tests of the packages that take a bearer.Verifier: a
// bearer.IntrospectionVerifier asking the issuer's RFC 7662 endpoint. A
// minted token is active until revoked (expiry, audience and issuer are
// checked by the verifier, as for any token); anything else, forged
// tokens included, is refused as invalid. Answers are not cached, so a
// revocation takes effect at once. The JWT verifier (module
// oauthmeta/jwtverify) checks the same tokens locally against the
// issuer's JWKS. A resource that is not an absolute HTTPS (or loopback)
// URL fails the test (panics for an issuer from Start).
func (i *Issuer) Verifier(resource string) bearer.Verifier {
	if i.tb != nil {
		i.tb.Helper()
	}
	v, err := bearer.NewIntrospectionVerifier(i.URL, resource, &bearer.IntrospectionOptions{
		Endpoint:     i.URL + "/introspect",
		ClientID:     IntrospectionClientID,
		ClientSecret: IntrospectionClientSecret,
		HTTPClient:   i.Client(),
		CacheTTL:     -1,
	})
	if err != nil {
		if i.tb != nil {
			i.tb.Fatalf("oauthmetatest: Verifier(%q): %v", resource, err)
		}
		panic(fmt.Sprintf("oauthmetatest: Verifier(%q): %v", resource, err))
	}
	return v
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
