package oauthmetatest

import (
	"maps"
	"net/http"
)

// Credentials a resource server presents to the issuer's RFC 7662
// introspection endpoint (HTTP Basic).
const (
	IntrospectionClientID     = "resource-server"
	IntrospectionClientSecret = "resource-server-secret"
)

// Revoke makes the introspection endpoint report token as inactive.
func (i *Issuer) Revoke(token string) {
	i.mu.Lock()
	i.revoked[token] = true
	i.mu.Unlock()
}

// serveIntrospect answers RFC 7662 requests: a token this issuer minted
// with one of its keys (not forged with "none", HS256 or another key id)
// and did not revoke is active, with its claims; anything else is
// inactive.
// Expiry is left to the resource server, as the claims carry exp.
func (i *Issuer) serveIntrospect(w http.ResponseWriter, r *http.Request) {
	if id, secret, ok := r.BasicAuth(); !ok || id != IntrospectionClientID || secret != IntrospectionClientSecret {
		w.Header().Set("WWW-Authenticate", `Basic realm="introspection"`)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	tok := r.PostForm.Get("token")
	i.mu.Lock()
	claims, ok := i.minted[tok]
	ok = ok && !i.revoked[tok]
	i.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusOK, map[string]any{"active": false})
		return
	}
	out := maps.Clone(claims)
	out["active"] = true
	out["token_type"] = "Bearer"
	writeJSON(w, http.StatusOK, out)
}
