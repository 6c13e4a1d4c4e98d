package oauthmetatest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// codeGrant is what an authorization code stands for.
type codeGrant struct {
	clientID, redirectURI, resource, scope, challenge string
}

// Approval is the outcome of [Issuer.Approve]: what the authorization
// endpoint would have sent to the client's redirect URI.
type Approval struct {
	Code, State, Iss string
}

// Approve plays the user consenting at the authorization endpoint: it checks
// authURL (an authorization request the client built) the way a strict
// authorization server does — response_type=code, PKCE S256, a resource
// indicator — and returns the code and state the redirect would carry.
// The issuer's token endpoint then exchanges the code for an access token
// whose audience is the requested resource.
func (i *Issuer) Approve(authURL string) (*Approval, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, err
	}
	if got, want := u.Scheme+"://"+u.Host+u.Path, i.URL+"/authorize"; got != want {
		return nil, fmt.Errorf("authorization endpoint %q, want %q", got, want)
	}
	q := u.Query()
	switch {
	case q.Get("response_type") != "code":
		return nil, errors.New("response_type must be code")
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		return nil, errors.New("PKCE S256 code_challenge required")
	case q.Get("resource") == "":
		return nil, errors.New("resource indicator required")
	case q.Get("client_id") == "" || q.Get("redirect_uri") == "":
		return nil, errors.New("client_id and redirect_uri required")
	}
	code := rand.Text()
	i.mu.Lock()
	i.codes[code] = codeGrant{
		clientID:    q.Get("client_id"),
		redirectURI: q.Get("redirect_uri"),
		resource:    q.Get("resource"),
		scope:       q.Get("scope"),
		challenge:   q.Get("code_challenge"),
	}
	i.mu.Unlock()
	return &Approval{Code: code, State: q.Get("state"), Iss: i.URL}, nil
}

// serveToken exchanges a code from Approve for an access token.
func (i *Issuer) serveToken(w http.ResponseWriter, r *http.Request) {
	fail := func(code, desc string) {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": desc})
	}
	if err := r.ParseForm(); err != nil {
		fail("invalid_request", err.Error())
		return
	}
	if r.PostForm.Get("grant_type") != "authorization_code" {
		fail("unsupported_grant_type", "only authorization_code")
		return
	}
	i.mu.Lock()
	g, ok := i.codes[r.PostForm.Get("code")]
	delete(i.codes, r.PostForm.Get("code"))
	i.mu.Unlock()
	if !ok {
		fail("invalid_grant", "unknown or used code")
		return
	}
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	switch {
	case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
		fail("invalid_grant", "PKCE verification failed")
		return
	case r.PostForm.Get("redirect_uri") != g.redirectURI:
		fail("invalid_grant", "redirect_uri mismatch")
		return
	case r.PostForm.Get("resource") != "" && r.PostForm.Get("resource") != g.resource:
		fail("invalid_target", "resource differs from the authorization request")
		return
	}
	tok, err := i.mint(g.resource, []TokenOption{WithScope(g.scope), WithClaim("client_id", g.clientID)})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": tok,
		"token_type":   "Bearer",
		"expires_in":   3600,
		"scope":        strings.TrimSpace(g.scope),
	})
}
