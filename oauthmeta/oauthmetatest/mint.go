package oauthmetatest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"time"
)

// Signing algorithms [Issuer.Mint] understands. AlgNone and AlgHS256 make
// forged tokens: "none" carries no signature, and HS256 is an HMAC keyed
// with the PEM of the issuer's RSA public key (the classic algorithm
// confusion attack).
const (
	AlgRS256 = "RS256"
	AlgES256 = "ES256"
	AlgEdDSA = "EdDSA"
	AlgNone  = "none"
	AlgHS256 = "HS256"
)

// DefaultSubject and DefaultClientID are the "sub" and "client_id" of
// minted tokens unless options change them.
const (
	DefaultSubject  = "user-1"
	DefaultClientID = "test-client"
)

type token struct {
	header map[string]any
	claims map[string]any
	alg    string
}

// A TokenOption changes a token minted by [Issuer.Mint].
type TokenOption func(*token)

// WithAlg signs with alg (one of the Alg constants) and sets the matching
// key id.
func WithAlg(alg string) TokenOption {
	return func(t *token) {
		t.alg = alg
		t.header["alg"] = alg
		switch alg {
		case AlgES256:
			t.header["kid"] = KidEC
		case AlgEdDSA:
			t.header["kid"] = KidEd25519
		case AlgNone:
			delete(t.header, "kid")
		}
	}
}

// WithKid sets the header's key id without changing the signing key.
func WithKid(kid string) TokenOption { return func(t *token) { t.header["kid"] = kid } }

// WithType sets the header's "typ"; an empty string removes it.
func WithType(typ string) TokenOption {
	return func(t *token) {
		if typ == "" {
			delete(t.header, "typ")
			return
		}
		t.header["typ"] = typ
	}
}

// WithScope sets the space-separated "scope" claim.
func WithScope(scope string) TokenOption { return WithClaim("scope", scope) }

// WithClaim sets claim name to v (any JSON value).
func WithClaim(name string, v any) TokenOption { return func(t *token) { t.claims[name] = v } }

// WithoutClaim removes claim name.
func WithoutClaim(name string) TokenOption { return func(t *token) { delete(t.claims, name) } }

// WithExpiry sets "exp".
func WithExpiry(at time.Time) TokenOption { return WithClaim("exp", at.Unix()) }

// WithNotBefore sets "nbf".
func WithNotBefore(at time.Time) TokenOption { return WithClaim("nbf", at.Unix()) }

// WithIssuedAt sets "iat".
func WithIssuedAt(at time.Time) TokenOption { return WithClaim("iat", at.Unix()) }

// Mint returns a signed JWT access token for audience. By default it is an
// RFC 9068 token: header typ "at+jwt", alg RS256, kid [KidRSA]; claims iss,
// sub [DefaultSubject], aud, client_id [DefaultClientID], iat now, exp in
// one hour and a random jti. Options change any of that.
func (i *Issuer) Mint(audience string, opts ...TokenOption) string {
	if i.tb != nil {
		i.tb.Helper()
	}
	s, err := i.mint(audience, opts)
	if err != nil {
		if i.tb != nil {
			i.tb.Fatalf("oauthmetatest: mint: %v", err)
		}
		panic("oauthmetatest: mint: " + err.Error())
	}
	return s
}

func (i *Issuer) mint(audience string, opts []TokenOption) (string, error) {
	now := time.Now()
	t := &token{
		alg:    AlgRS256,
		header: map[string]any{"alg": AlgRS256, "typ": "at+jwt", "kid": KidRSA},
		claims: map[string]any{
			"iss":       i.URL,
			"sub":       DefaultSubject,
			"aud":       audience,
			"client_id": DefaultClientID,
			"iat":       now.Unix(),
			"exp":       now.Add(time.Hour).Unix(),
			"jti":       rand.Text(),
		},
	}
	for _, o := range opts {
		o(t)
	}
	h, err := json.Marshal(t.header)
	if err != nil {
		return "", err
	}
	c, err := json.Marshal(t.claims)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(h) + "." + enc.EncodeToString(c)
	sig, err := i.sign(t.alg, []byte(input))
	if err != nil {
		return "", err
	}
	tok := input + "." + enc.EncodeToString(sig)
	if t.genuine() {
		// Introspection knows the tokens a JWT verifier would find
		// signed by one of the issuer's keys; forged ones stay inactive.
		i.mu.Lock()
		i.minted[tok] = t.claims
		i.mu.Unlock()
	}
	return tok, nil
}

// genuine reports whether t is signed by the issuer's key its header
// names: not "none", not HS256, and no key id changed by WithKid.
func (t *token) genuine() bool {
	kid := map[string]string{AlgRS256: KidRSA, AlgES256: KidEC, AlgEdDSA: KidEd25519}[t.alg]
	return kid != "" && t.header["alg"] == t.alg && t.header["kid"] == kid
}

func (i *Issuer) sign(alg string, input []byte) ([]byte, error) {
	digest := sha256.Sum256(input)
	switch alg {
	case AlgRS256:
		return rsa.SignPKCS1v15(rand.Reader, i.rsaKey, crypto.SHA256, digest[:])
	case AlgES256:
		r, s, err := ecdsa.Sign(rand.Reader, i.ecKey, digest[:])
		if err != nil {
			return nil, err
		}
		out := make([]byte, 64)
		r.FillBytes(out[:32])
		s.FillBytes(out[32:])
		return out, nil
	case AlgEdDSA:
		return ed25519.Sign(i.edKey, input), nil
	case AlgNone:
		return nil, nil
	case AlgHS256:
		der, err := x509.MarshalPKIXPublicKey(&i.rsaKey.PublicKey)
		if err != nil {
			return nil, err
		}
		mac := hmac.New(sha256.New, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
		mac.Write(input)
		return mac.Sum(nil), nil
	}
	return nil, fmt.Errorf("unknown alg %q", alg)
}
