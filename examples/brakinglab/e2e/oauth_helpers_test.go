package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

// discovery is what a client learns before it can start an authorization.
type discovery struct {
	Resource string   // protected resource (the MCP URL)
	Scopes   []string // scopes_supported of the resource
	Issuer   string
	AuthURL  string
	TokenURL string
	RegURL   string
}

// discover follows RFC 9728 then RFC 8414 metadata from the MCP URL.
func discover(t *testing.T, s *server) discovery {
	t.Helper()
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	getJSON(t, s.Base+"/.well-known/oauth-protected-resource/mcp", &prm)
	if prm.Resource != s.MCPURL || len(prm.AuthorizationServers) == 0 {
		t.Fatalf("protected resource metadata = %+v, want resource %s and an authorization server", prm, s.MCPURL)
	}
	issuer := prm.AuthorizationServers[0]
	u, err := url.Parse(issuer)
	if err != nil {
		t.Fatal(err)
	}
	metaURL := u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + strings.TrimSuffix(u.Path, "/")
	var asm struct {
		Issuer                string `json:"issuer"`
		AuthorizationEndpoint string `json:"authorization_endpoint"`
		TokenEndpoint         string `json:"token_endpoint"`
		RegistrationEndpoint  string `json:"registration_endpoint"`
	}
	getJSON(t, metaURL, &asm)
	if asm.Issuer != issuer || asm.AuthorizationEndpoint == "" || asm.TokenEndpoint == "" || asm.RegistrationEndpoint == "" {
		t.Fatalf("authorization server metadata = %+v, want issuer %s and all endpoints", asm, issuer)
	}
	return discovery{Resource: prm.Resource, Scopes: prm.ScopesSupported, Issuer: asm.Issuer,
		AuthURL: asm.AuthorizationEndpoint, TokenURL: asm.TokenEndpoint, RegURL: asm.RegistrationEndpoint}
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d: %s", u, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v: %s", u, err, body)
	}
}

// register performs RFC 7591 dynamic registration of a public client.
func register(t *testing.T, d discovery, name, redirect string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"client_name":                name,
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
	})
	resp, err := http.Post(d.RegURL, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var reg struct {
		ClientID string `json:"client_id"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(raw, &reg) != nil || reg.ClientID == "" {
		t.Fatalf("registration: status %d: %s", resp.StatusCode, raw)
	}
	return reg.ClientID
}

// authRequest is one authorization request with its PKCE verifier.
type authRequest struct {
	URL, State, Verifier string
}

func newAuthRequest(d discovery, clientID, redirect string) authRequest {
	verifier := oauth2.GenerateVerifier()
	state := oauth2.GenerateVerifier()[:16]
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {clientID},
		"redirect_uri":          {redirect},
		"scope":                 {strings.Join(d.Scopes, " ")},
		"state":                 {state},
		"code_challenge":        {oauth2.S256ChallengeFromVerifier(verifier)},
		"code_challenge_method": {"S256"},
		"resource":              {d.Resource},
	}
	return authRequest{URL: d.AuthURL + "?" + q.Encode(), State: state, Verifier: verifier}
}

// exchange redeems an authorization code at the token endpoint.
func exchange(t *testing.T, d discovery, clientID, redirect, code, verifier string) (access string) {
	t.Helper()
	resp, err := http.PostForm(d.TokenURL, url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {redirect},
		"client_id":     {clientID},
		"code_verifier": {verifier},
		"resource":      {d.Resource},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var tok struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &tok) != nil || tok.AccessToken == "" {
		t.Fatalf("token exchange: status %d: %s", resp.StatusCode, raw)
	}
	if !strings.EqualFold(tok.TokenType, "Bearer") {
		t.Errorf("token_type = %q, want Bearer", tok.TokenType)
	}
	return tok.AccessToken
}

// callbackServer is a loopback redirect URI that records each request.
type callbackServer struct {
	*httptest.Server
	hits chan url.Values
}

func newCallbackServer(t *testing.T) *callbackServer {
	t.Helper()
	c := &callbackServer{hits: make(chan url.Values, 8)}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		c.hits <- r.URL.Query()
		fmt.Fprint(w, "<!doctype html><title>Signed in</title><p>You can close this window.</p>")
	}))
	t.Cleanup(c.Close)
	return c
}

// wait returns the next callback query or fails when ctx ends.
func (c *callbackServer) wait(t *testing.T, ctx context.Context) url.Values {
	t.Helper()
	select {
	case q := <-c.hits:
		return q
	case <-ctx.Done():
		t.Fatalf("the redirect URI was never called: %v", ctx.Err())
		return nil
	}
}
