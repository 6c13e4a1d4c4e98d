package authserver

import (
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// TestReplicasShareOneDatabase puts two Servers on one database behind a
// round-robin front, as replicas behind a load balancer: every request
// of the sign-in goes to the other replica than the one before, tokens
// minted by one verify with the other's keys, and reuse of a rotated
// refresh token or a replayed code is caught by the replica that did not
// issue it. (In the PostgreSQL pass the database is a PostgreSQL one.)
func TestReplicasShareOneDatabase(t *testing.T) {
	e := newEnv(t, nil)
	b, err := New(openDB(t, e.dbPath), demoUsers, &Options{Issuer: e.URL(), Resource: e.Resource(), Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	replicas := []*Server{e.srv, b}
	var next, served [2]atomic.Int64
	e.setHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := next[0].Add(1) % 2
		served[i].Add(1)
		replicas[i].ServeHTTP(w, r)
	}))

	const cb = "http://127.0.0.1:9999/callback"
	clientID := e.mustRegister("Two Replicas", cb)
	p := newPKCE()
	code := e.authorize(clientID, cb, p)
	tok := e.exchange(clientID, code, cb, p)
	if tok.Status != http.StatusOK {
		t.Fatalf("exchange: %+v", tok)
	}
	if served[0].Load() == 0 || served[1].Load() == 0 {
		t.Fatalf("requests per replica %d and %d: the flow did not cross replicas", served[0].Load(), served[1].Load())
	}

	// The access token verifies with the key set either replica publishes.
	for i, s := range replicas {
		parsed, err := jwt.ParseSigned(tok.AccessToken, []jose.SignatureAlgorithm{jose.ES256})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(s.keys.jwks)
		var set jose.JSONWebKeySet
		if err := json.Unmarshal(raw, &set); err != nil {
			t.Fatal(err)
		}
		var claims jwt.Claims
		if err := parsed.Claims(set, &claims); err != nil || claims.Subject != "user-demo" {
			t.Fatalf("replica %d: verify: %v (sub %q)", i, err, claims.Subject)
		}
	}

	// The code was used: presenting it again, to whichever replica, fails
	// and revokes what it produced.
	wantOAuthError(t, e.exchange(clientID, code, cb, p), http.StatusBadRequest, "invalid_grant")
	wantOAuthError(t, e.refresh(clientID, tok.RefreshToken), http.StatusBadRequest, "invalid_grant")

	// A fresh grant: rotate on one replica, reuse the old token on the
	// other, and the whole family is revoked on both.
	clientID, tok = e.login()
	rotated := e.refresh(clientID, tok.RefreshToken)
	if rotated.Status != http.StatusOK {
		t.Fatalf("refresh: %+v", rotated)
	}
	wantOAuthError(t, e.refresh(clientID, tok.RefreshToken), http.StatusBadRequest, "invalid_grant")
	wantOAuthError(t, e.refresh(clientID, rotated.RefreshToken), http.StatusBadRequest, "invalid_grant")
	wantOAuthError(t, e.refresh(clientID, rotated.RefreshToken), http.StatusBadRequest, "invalid_grant")
}
