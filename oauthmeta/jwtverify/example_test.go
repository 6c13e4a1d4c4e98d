package jwtverify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/oauthmeta/jwtverify"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

// A verifier can be used on its own, e.g. for a transport other than HTTP.
func ExampleVerifier_Verify() {
	issuer, err := oauthmetatest.Start(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer issuer.Close()

	v, err := jwtverify.New(issuer.URL, "https://coach.example.com/mcp", nil)
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

// An external identity provider issues the tokens: its issuer URL, exactly
// as in the tokens' iss claim, and the MCP endpoint's canonical URI as the
// audience. New refuses settings that contradict each other, such as an
// issuer that differs by a trailing slash; the working configuration
// serves the metadata clients discover the provider from.
func Example_externalIssuer() {
	const issuer = "https://login.example.com/realms/garage" // Keycloak-style, no trailing slash
	const resource = "https://garage.example.com/mcp"
	verifier, err := jwtverify.New(issuer, resource, &jwtverify.Options{
		AcceptJWTType: true, // the provider sends typ "JWT", not "at+jwt"
	})
	if err != nil {
		log.Fatal(err)
	}
	opts := func(servers ...string) *codemode.Options {
		return &codemode.Options{
			Auth:   &codemode.Auth{Verifier: verifier, Resource: resource, AuthorizationServers: servers},
			Logger: slog.New(slog.DiscardHandler),
		}
	}
	_, err = codemode.New(codemodeCatalog(), opts(issuer+"/"))
	fmt.Println(err != nil && strings.Contains(err.Error(), "differ only by a trailing slash"))

	srv, err := codemode.New(codemodeCatalog(), opts(issuer))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	w := httptest.NewRecorder()
	srv.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/.well-known/oauth-protected-resource/mcp", nil))
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &meta); err != nil {
		log.Fatal(err)
	}
	fmt.Println(meta.Resource, meta.AuthorizationServers)
	// Output:
	// true
	// https://garage.example.com/mcp [https://login.example.com/realms/garage]
}

// codemodeCatalog registers one function, for the codemode example.
func codemodeCatalog() *catalog.Catalog {
	cat, err := catalog.New("garage", nil)
	if err != nil {
		log.Fatal(err)
	}
	type in struct {
		Track string `json:"track"`
	}
	catalog.MustAdd(cat, catalog.Func[in, int]{Name: "countLaps", Description: "Counts laps.", Tier: catalog.ReadOnly,
		Handler: func(context.Context, in) (int, error) { return 3, nil }})
	return cat
}
