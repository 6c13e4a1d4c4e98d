package jwtverify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/brakinglab/codemode-go/oauthmeta"
	"github.com/brakinglab/codemode-go/oauthmeta/internal/fetch"
)

// Why a signature check failed; recorded in the request context because
// go-oidc flattens the key set's error into a string.
var (
	errUnknownKey   = errors.New("token signed with an unknown key")
	errBadSignature = errors.New("token signature is invalid")
)

type sigResultKey struct{}

// sigResult receives the key set's error for one verification.
type sigResult struct{ err error }

// keySet is an oidc.KeySet over a remote JWKS that re-fetches the set at
// most once per interval. go-oidc's RemoteKeySet fetches on every unknown
// kid, so each forged token would cost a request to the issuer.
type keySet struct {
	jwksURL  func(context.Context) (string, error)
	client   *http.Client
	algs     []jose.SignatureAlgorithm
	interval time.Duration
	now      func() time.Time

	mu   sync.RWMutex
	keys []jose.JSONWebKey

	fetchMu     sync.Mutex // serializes fetches; guards the fields below
	lastAttempt time.Time
	lastErr     error
}

// VerifySignature implements oidc.KeySet.
func (k *keySet) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	payload, err := k.verify(ctx, jwt)
	if res, ok := ctx.Value(sigResultKey{}).(*sigResult); ok {
		res.err = err
	}
	return payload, err
}

func (k *keySet) verify(ctx context.Context, jwt string) ([]byte, error) {
	jws, err := jose.ParseSignedCompact(jwt, k.algs)
	if err != nil {
		return nil, err
	}
	if len(jws.Signatures) != 1 {
		return nil, errors.New("token must have exactly one signature")
	}
	kid := jws.Signatures[0].Header.KeyID
	payload, matched := tryKeys(jws, kid, k.cached())
	if payload != nil {
		return payload, nil
	}
	if err := k.refresh(ctx); err != nil && len(k.cached()) == 0 {
		return nil, err
	}
	// Retry with whatever is current now: this call or a concurrent one
	// may have fetched new keys.
	payload, matchedNow := tryKeys(jws, kid, k.cached())
	if payload != nil {
		return payload, nil
	}
	if matched || matchedNow {
		return nil, errBadSignature
	}
	return nil, errUnknownKey
}

func (k *keySet) cached() []jose.JSONWebKey {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.keys
}

// tryKeys verifies jws with every key whose kid matches (every key when the
// token names none). matched reports whether any key was tried.
func tryKeys(jws *jose.JSONWebSignature, kid string, keys []jose.JSONWebKey) (payload []byte, matched bool) {
	for i := range keys {
		key := &keys[i]
		if kid != "" && key.KeyID != kid {
			continue
		}
		if key.Use != "" && key.Use != "sig" {
			continue
		}
		matched = true
		// A key pinned to one algorithm verifies only that algorithm.
		if key.Algorithm != "" && key.Algorithm != jws.Signatures[0].Header.Algorithm {
			continue
		}
		if p, err := jws.Verify(key); err == nil {
			return p, true
		}
	}
	return nil, matched
}

// keyFetchTimeout bounds one key set fetch (with its metadata lookup).
const keyFetchTimeout = 10 * time.Second

// refresh fetches the key set unless an attempt was made within the
// interval. A failure is remembered for the interval too, so an unreachable
// issuer is not hammered either.
func (k *keySet) refresh(ctx context.Context) error {
	k.fetchMu.Lock()
	defer k.fetchMu.Unlock()
	now := k.now()
	if !k.lastAttempt.IsZero() && now.Sub(k.lastAttempt) < k.interval {
		return k.lastErr
	}
	// The fetch does not end with the request that started it: if a caller
	// going away cancelled it and it did not count, clients that send
	// unknown-kid tokens and disconnect at once would make the verifier
	// fetch again and again. keyFetchTimeout bounds it instead.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keyFetchTimeout)
	defer cancel()
	keys, err := k.fetch(fctx)
	k.lastAttempt, k.lastErr = now, err
	if err != nil {
		return err
	}
	k.mu.Lock()
	k.keys = keys
	k.mu.Unlock()
	return nil
}

func (k *keySet) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	u, err := k.jwksURL(ctx)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if _, err := fetch.GetJSON(ctx, k.client, u, &raw); err != nil {
		return nil, fmt.Errorf("%w: fetching key set: %w", oauthmeta.ErrUnavailable, err)
	}
	keys := make([]jose.JSONWebKey, 0, len(raw.Keys))
	for _, r := range raw.Keys {
		var key jose.JSONWebKey
		// Skip keys go-jose cannot read (other curves, encryption-only
		// types) instead of failing the whole set, as RFC 7517 §5 advises.
		if err := json.Unmarshal(r, &key); err != nil || !key.Valid() {
			continue
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: key set at %s has no usable public keys", oauthmeta.ErrUnavailable, u)
	}
	return keys, nil
}
