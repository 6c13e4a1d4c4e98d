package integration_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/internal/tsclienttest"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
	"github.com/brakinglab/codemode-go/oauthmeta/jwtverify"
)

// TestOIDCProvider runs the server against a real, OpenID-certified
// provider (panva's oidc-provider from npm, .ci/js) issuing RFC 9068 JWT
// access tokens for resource indicators, verified by jwtverify (a module
// the root's tests cannot import: it would put go-oidc and go-jose in
// every consumer's module graph): the verifier discovers the
// provider's keys from its metadata, a token for the MCP resource calls a
// function through Handler with the official go-sdk client, a token for
// another audience is refused, and scopes carried in a non-standard
// claim count only when ClaimNames names it.
func TestOIDCProvider(t *testing.T) {
	tsclienttest.Need(t, "oidc-provider")

	// Two servers with one canonical resource URI: one reads scopes from
	// the standard claims only, the other also from "permissions".
	standard, custom := httptest.NewUnstartedServer(nil), httptest.NewUnstartedServer(nil)
	resource := "http://" + standard.Listener.Addr().String() + "/mcp"
	const other = "https://inventory.example/api"

	// The provider stops when its input ends, as Start arranges at the
	// test's end.
	provider := tsclienttest.Start(t, t.Context(), "testdata/oidc-provider.mjs", []string{"MCP_RESOURCE=" + resource, "OTHER_RESOURCE=" + other})
	line, err := bufio.NewReader(provider.Stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("provider did not start: %v\n%s", err, provider.Stderr())
	}
	var started struct{ Issuer string }
	if err := json.Unmarshal([]byte(line), &started); err != nil {
		t.Fatalf("provider said %q: %v", line, err)
	}
	issuer := started.Issuer

	serve := func(hs *httptest.Server, claims bearer.ClaimNames) {
		// No JWKSURL: the verifier finds the keys through discovery.
		v, err := jwtverify.New(issuer, resource, &jwtverify.Options{Claims: claims})
		if err != nil {
			t.Fatal(err)
		}
		o := &codemode.Options{
			Auth:  &codemode.Auth{Verifier: v, Resource: resource, AuthorizationServers: []string{issuer}},
			Audit: codemode.AuditOptions{Sink: codemode.NoAudit},
		}
		withPool(t, o, 1)
		srv, err := codemode.New(sessionsCatalog(), o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		hs.Config.Handler = srv.Handler()
		hs.Start()
		t.Cleanup(hs.Close)
	}
	serve(standard, bearer.ClaimNames{})
	serve(custom, bearer.ClaimNames{Scopes: []string{"scope", "permissions"}})

	token := func(client, secret, audience, scope string) string {
		form := url.Values{"grant_type": {"client_credentials"}, "resource": {audience}}
		if scope != "" {
			form.Set("scope", scope)
		}
		req, _ := http.NewRequest(http.MethodPost, issuer+"/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(client, secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &tok) != nil || tok.AccessToken == "" {
			t.Fatalf("token for %s: %d %s", audience, resp.StatusCode, body)
		}
		return tok.AccessToken
	}
	connect := func(hs *httptest.Server, tok string) (*mcp.ClientSession, error) {
		c := mcp.NewClient(&mcp.Implementation{Name: "idp-client", Version: "1"}, nil)
		cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{
			Endpoint:   hs.URL + "/mcp",
			HTTPClient: mcptest.Bearer(tok),
		}, nil)
		if err == nil {
			t.Cleanup(func() { cs.Close() })
		}
		return cs, err
	}
	const code = `return (await brakinglab.getSessions({})).length`

	// A token for the MCP resource works.
	cs, err := connect(standard, token("mcp-client", "mcp-secret", resource, "sessions:read"))
	if err != nil {
		t.Fatalf("connect with the provider's token: %v", err)
	}
	if res := run(t, cs, code); res.IsError || !strings.Contains(text(res), "5") {
		t.Fatalf("call: %s", text(res))
	}

	// A token for another audience is refused before MCP.
	if _, err := connect(standard, token("mcp-client", "mcp-secret", other, "other:read")); err == nil {
		t.Fatal("a token for another audience was accepted")
	}
	wrong := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{}`))
	wrong.Header.Set("Authorization", "Bearer "+token("mcp-client", "mcp-secret", other, "other:read"))
	w := httptest.NewRecorder()
	standard.Config.Handler.ServeHTTP(w, wrong)
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Header().Get("WWW-Authenticate"), "invalid_token") {
		t.Fatalf("other audience: %d %q", w.Code, w.Header().Get("WWW-Authenticate"))
	}

	// Scopes in "permissions" count only where ClaimNames says so.
	perm := token("perm-client", "perm-secret", resource, "")
	cs, err = connect(standard, perm)
	if err != nil {
		t.Fatal(err)
	}
	if res := run(t, cs, code); !res.IsError || !strings.Contains(text(res), "requires scope sessions:read") {
		t.Fatalf("standard claims: %s", text(res))
	}
	cs, err = connect(custom, perm)
	if err != nil {
		t.Fatal(err)
	}
	if res := run(t, cs, code); res.IsError {
		t.Fatalf("permissions claim: %s", text(res))
	}
}

// sessionsCatalog has one function that needs the scope sessions:read.
func sessionsCatalog() *catalog.Catalog {
	cat, err := catalog.New("brakinglab", nil)
	if err != nil {
		panic(err)
	}
	type in struct{}
	catalog.MustAdd(cat, catalog.Func[in, []int]{
		Name: "getSessions", Description: "Lists the driver's sessions.", Tier: catalog.ReadOnly, Scopes: []string{"sessions:read"},
		Handler: func(context.Context, in) ([]int, error) { return []int{1, 2, 3, 4, 5}, nil },
	})
	return cat
}
