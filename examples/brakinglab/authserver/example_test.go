package authserver_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/brakinglab/codemode-go/examples/brakinglab/authserver"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	_ "modernc.org/sqlite"
)

// oneUser accepts demo / demo.
type oneUser struct{}

func (oneUser) Authenticate(_ context.Context, username, password string) (string, string, error) {
	if username == "demo" && password == "demo" {
		return "user-1", "Demo Driver", nil
	}
	return "", "", authserver.ErrBadCredentials
}

// A Server shares the host's SQLite database and mounts its endpoints on
// the host's mux, next to the MCP endpoint it issues tokens for.
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "authserver-example")
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", filepath.Join(dir, "brakinglab.db"))
	if err != nil {
		panic(err)
	}
	defer db.Close()

	as, err := authserver.New(db, oneUser{}, &authserver.Options{
		Issuer:   "http://127.0.0.1:8080",
		Resource: "http://127.0.0.1:8080/mcp",
	})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	as.Mount(mux)

	m := as.Metadata()
	fmt.Println("token endpoint:", m.TokenEndpoint)
	fmt.Println("PKCE:", m.CodeChallengeMethodsSupported, "client auth:", m.TokenEndpointAuthMethodsSupported)
	fmt.Println("scopes:", m.ScopesSupported)
	fmt.Println("metadata at:", as.MetadataPath())
	// Output:
	// token endpoint: http://127.0.0.1:8080/token
	// PKCE: [S256] client auth: [none]
	// scopes: [brakinglab:read brakinglab:write]
	// metadata at: /.well-known/oauth-authorization-server
}

// Clients register themselves (RFC 7591) as public clients; a redirect URI
// must be https or http on a loopback host.
func ExampleServer_register() {
	dir, _ := os.MkdirTemp("", "authserver-example")
	defer os.RemoveAll(dir)
	db, _ := sql.Open("sqlite", filepath.Join(dir, "brakinglab.db"))
	defer db.Close()

	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	defer ts.Close()
	as, err := authserver.New(db, oneUser{}, &authserver.Options{Issuer: ts.URL, Resource: ts.URL + "/mcp"})
	if err != nil {
		panic(err)
	}
	as.Mount(mux)

	for _, redirect := range []string{"http://127.0.0.1:33418/callback", "http://coach.example.com/callback"} {
		body := fmt.Sprintf(`{"client_name":"Lap Coach","redirect_uris":[%q]}`, redirect)
		resp, err := http.Post(ts.URL+"/register", "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		if resp.StatusCode == http.StatusCreated {
			var r oauthex.ClientRegistrationResponse
			json.NewDecoder(resp.Body).Decode(&r)
			fmt.Println(resp.StatusCode, "auth method:", r.TokenEndpointAuthMethod, "grants:", r.GrantTypes)
		} else {
			var e oauthex.ClientRegistrationError
			json.NewDecoder(resp.Body).Decode(&e)
			fmt.Println(resp.StatusCode, e.ErrorCode)
		}
		resp.Body.Close()
	}
	// Output:
	// 201 auth method: none grants: [authorization_code refresh_token]
	// 400 invalid_redirect_uri
}
