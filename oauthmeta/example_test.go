package oauthmeta_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/oauthmeta"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
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

// RequireBearer guards the MCP endpoint: no token gets the discovery
// challenge, a token without the needed scope gets insufficient_scope, a
// good token reaches the handler with its principal.
func ExampleRequireBearer() {
	issuer, err := oauthmetatest.Start(nil) // stands in for the real authorization server
	if err != nil {
		log.Fatal(err)
	}
	defer issuer.Close()

	const resource = "https://coach.example.com/mcp"
	verifier, err := oauthmeta.NewJWTVerifier(issuer.URL, resource, nil)
	if err != nil {
		log.Fatal(err)
	}
	prmURL, _ := oauthmeta.ResourceMetadataURL(resource)
	protect := oauthmeta.RequireBearer(verifier, &oauthmeta.BearerOptions{
		ResourceMetadataURL: prmURL,
		Scopes:              []string{"sessions:read"},
	})
	srv := httptest.NewServer(protect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := catalog.PrincipalFrom(r.Context())
		fmt.Fprintf(w, "hello %s", p.Subject)
	})))
	defer srv.Close()

	for _, token := range []string{
		"",
		issuer.Mint(resource, oauthmetatest.WithScope("profile")),
		issuer.Mint(resource, oauthmetatest.WithScope("sessions:read")),
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(strings.TrimSpace(resp.Status[:3] + " " + resp.Header.Get("WWW-Authenticate")))
		fmt.Printf("%s\n", body)
	}
	// Output:
	// 401 Bearer scope="sessions:read", resource_metadata="https://coach.example.com/.well-known/oauth-protected-resource/mcp"
	// {"error":"unauthorized","error_description":"this endpoint requires an OAuth access token in the Authorization header (Bearer)"}
	//
	// 403 Bearer error="insufficient_scope", error_description="token lacks required scope: sessions:read", scope="sessions:read", resource_metadata="https://coach.example.com/.well-known/oauth-protected-resource/mcp"
	// {"error":"insufficient_scope","error_description":"token lacks required scope: sessions:read"}
	//
	// 200
	// hello user-1
}

// A verifier can be used on its own, e.g. for a transport other than HTTP.
func ExampleJWTVerifier_Verify() {
	issuer, err := oauthmetatest.Start(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer issuer.Close()

	v, err := oauthmeta.NewJWTVerifier(issuer.URL, "https://coach.example.com/mcp", nil)
	if err != nil {
		log.Fatal(err)
	}
	tok, err := v.Verify(context.Background(), issuer.Mint("https://coach.example.com/mcp",
		oauthmetatest.WithScope("sessions:read sessions:write")))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%+v\n", tok.Principal)

	_, err = v.Verify(context.Background(), issuer.Mint("https://coach.example.com/mcp/"))
	fmt.Println(err)
	// Output:
	// {Subject:user-1 ClientID:test-client Scopes:[sessions:read sessions:write]}
	// invalid token: token audience is not this resource: request a token for resource "https://coach.example.com/mcp"
}

func ExampleChallenge() {
	fmt.Println(oauthmeta.Challenge{
		Error:            oauthmeta.ErrorInvalidToken,
		Description:      `token type "JWT" is not accepted`,
		ResourceMetadata: "https://coach.example.com/.well-known/oauth-protected-resource/mcp",
	})
	// Output:
	// Bearer error="invalid_token", error_description="token type \"JWT\" is not accepted", resource_metadata="https://coach.example.com/.well-known/oauth-protected-resource/mcp"
}
