package oauthmeta_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/brakinglab/codemode-go/oauthmeta"
)

// A server that is its own authorization server mounts both discovery
// documents; clients find them from the MCP endpoint's URL.
func ExampleMount() {
	prm, err := oauthmeta.NewResourceMetadata(oauthmeta.ResourceConfig{
		Resource:             "https://coach.example.com/mcp",
		AuthorizationServers: []string{"https://coach.example.com"},
		ScopesSupported:      []string{"sessions:read"},
		ResourceName:         "BrakingLab",
	})
	if err != nil {
		log.Fatal(err)
	}
	asm := &oauthex.AuthServerMeta{
		Issuer:                        "https://coach.example.com",
		AuthorizationEndpoint:         "https://coach.example.com/oauth/authorize",
		TokenEndpoint:                 "https://coach.example.com/oauth/token",
		JWKSURI:                       "https://coach.example.com/oauth/jwks",
		ResponseTypesSupported:        []string{"code"},
		CodeChallengeMethodsSupported: []string{"S256"},
	}
	mux := http.NewServeMux()
	if err := oauthmeta.Mount(mux, prm, asm); err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, path := range []string{
		"/.well-known/oauth-protected-resource/mcp",
		"/.well-known/oauth-authorization-server",
	} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			log.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%s %d\n%s", path, resp.StatusCode, body)
	}
	// Output:
	// /.well-known/oauth-protected-resource/mcp 200
	// {"resource":"https://coach.example.com/mcp","authorization_servers":["https://coach.example.com"],"scopes_supported":["sessions:read"],"bearer_methods_supported":["header"],"resource_name":"BrakingLab"}
	// /.well-known/oauth-authorization-server 200
	// {"issuer":"https://coach.example.com","authorization_endpoint":"https://coach.example.com/oauth/authorize","token_endpoint":"https://coach.example.com/oauth/token","jwks_uri":"https://coach.example.com/oauth/jwks","response_types_supported":["code"],"code_challenge_methods_supported":["S256"]}
}
