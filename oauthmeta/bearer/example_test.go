package bearer_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/oauthmeta"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

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
	// Opaque tokens, by asking the issuer (RFC 7662); jwtverify.New
	// checks JWTs locally instead.
	verifier, err := bearer.NewIntrospectionVerifier(issuer.URL, resource, &bearer.IntrospectionOptions{
		ClientID:     oauthmetatest.IntrospectionClientID,
		ClientSecret: oauthmetatest.IntrospectionClientSecret,
	})
	if err != nil {
		log.Fatal(err)
	}
	prmURL, _ := oauthmeta.ResourceMetadataURL(resource)
	protect := bearer.RequireBearer(verifier, &bearer.BearerOptions{
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

func ExampleChallenge() {
	fmt.Println(bearer.Challenge{
		Error:            bearer.ErrorInvalidToken,
		Description:      `token type "JWT" is not accepted`,
		ResourceMetadata: "https://coach.example.com/.well-known/oauth-protected-resource/mcp",
	})
	// Output:
	// Bearer error="invalid_token", error_description="token type \"JWT\" is not accepted", resource_metadata="https://coach.example.com/.well-known/oauth-protected-resource/mcp"
}
