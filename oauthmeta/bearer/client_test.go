package bearer_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/oauthmeta"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
	. "github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

type whoami struct {
	Subject  string   `json:"subject"`
	ClientID string   `json:"clientId"`
	Scopes   []string `json:"scopes"`
	SDKUser  string   `json:"sdkUser"`
}

// mcpResource runs a go-sdk MCP server behind RequireBearer, with the
// well-known routes mounted, and returns the MCP endpoint URL. Its one tool
// reports the principal it sees.
func mcpResource(t *testing.T, iss *Issuer, scopes []string) string {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "oauthmeta-test", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, whoami, error) {
		p, _ := catalog.PrincipalFrom(ctx)
		out := whoami{Subject: p.Subject, ClientID: p.ClientID, Scopes: p.Scopes}
		if req.Extra.TokenInfo != nil {
			out.SDKUser = req.Extra.TokenInfo.UserID
		}
		return nil, out, nil
	})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true})

	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	resource := srv.URL + "/mcp"
	prm, err := oauthmeta.NewResourceMetadata(oauthmeta.ResourceConfig{
		Resource:             resource,
		AuthorizationServers: []string{iss.URL},
		ScopesSupported:      []string{"sessions:read", "sessions:write"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := oauthmeta.Mount(mux, prm, nil); err != nil {
		t.Fatal(err)
	}
	prmURL, err := oauthmeta.ResourceMetadataURL(resource)
	if err != nil {
		t.Fatal(err)
	}
	v := iss.Verifier(resource)
	mux.Handle("/mcp", bearer.RequireBearer(v, &bearer.BearerOptions{ResourceMetadataURL: prmURL, Scopes: scopes})(mcpHandler))
	return resource
}

// authURLs records the authorization requests the client makes and lets
// the test issuer approve them.
type authURLs struct {
	mu   sync.Mutex
	urls []string
}

func (a *authURLs) fetcher(iss *Issuer) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		a.mu.Lock()
		a.urls = append(a.urls, args.URL)
		a.mu.Unlock()
		ap, err := iss.Approve(args.URL)
		if err != nil {
			return nil, err
		}
		return &auth.AuthorizationResult{Code: ap.Code, State: ap.State}, nil
	}
}

func callWhoami(t *testing.T, endpoint string, h auth.OAuthHandler) whoami {
	t.Helper()
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "oauthmeta-test-client", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, OAuthHandler: h}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	if err != nil || res.IsError {
		t.Fatalf("whoami: %v %+v", err, res)
	}
	m, _ := res.StructuredContent.(map[string]any)
	var out whoami
	out.Subject, _ = m["subject"].(string)
	out.ClientID, _ = m["clientId"].(string)
	out.SDKUser, _ = m["sdkUser"].(string)
	for _, s := range m["scopes"].([]any) {
		out.Scopes = append(out.Scopes, s.(string))
	}
	return out
}

// The official go-sdk client starts from nothing but the MCP URL: the 401
// challenge leads it to the protected-resource metadata, that to the
// authorization server's metadata, and the token it obtains for the
// advertised resource is accepted.
func TestGoSDKClientDiscoversAndConnects(t *testing.T) {
	iss := NewIssuer(t, nil)
	endpoint := mcpResource(t, iss, []string{"sessions:read"})
	var rec authURLs
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient:      &oauthex.ClientCredentials{ClientID: "coach-cli"},
		RedirectURL:              "http://127.0.0.1:9/callback",
		AuthorizationCodeFetcher: rec.fetcher(iss),
	})
	if err != nil {
		t.Fatal(err)
	}
	got := callWhoami(t, endpoint, h)

	if iss.MetadataFetches() == 0 {
		t.Error("the client never fetched the authorization server metadata")
	}
	if len(rec.urls) != 1 {
		t.Fatalf("%d authorization requests, want 1", len(rec.urls))
	}
	u, _ := url.Parse(rec.urls[0])
	if !strings.HasPrefix(rec.urls[0], iss.URL+"/authorize?") || u.Query().Get("resource") != endpoint || u.Query().Get("scope") != "sessions:read" {
		t.Errorf("authorization request %s", rec.urls[0])
	}
	if got.Subject != DefaultSubject || got.SDKUser != DefaultSubject || got.ClientID != "coach-cli" || !slices.Equal(got.Scopes, []string{"sessions:read"}) {
		t.Errorf("tool saw %+v", got)
	}
}

// A token lacking a scope gets 403 insufficient_scope; go-sdk's client only
// steps up when that error code is present, so this proves the challenge
// is the one clients act on.
func TestGoSDKClientStepsUpOnInsufficientScope(t *testing.T) {
	iss := NewIssuer(t, nil)
	endpoint := mcpResource(t, iss, []string{"sessions:read", "sessions:write"})
	var rec authURLs
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient:      &oauthex.ClientCredentials{ClientID: "coach-cli"},
		RedirectURL:              "http://127.0.0.1:9/callback",
		AuthorizationCodeFetcher: rec.fetcher(iss),
		InitialTokenSource: oauth2.StaticTokenSource(&oauth2.Token{
			AccessToken: iss.Mint(endpoint, WithScope("sessions:read")),
			TokenType:   "Bearer",
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	got := callWhoami(t, endpoint, h)
	if len(rec.urls) != 1 {
		t.Fatalf("%d authorization requests, want 1 step-up", len(rec.urls))
	}
	u, _ := url.Parse(rec.urls[0])
	// go-sdk unions the scopes in no particular order.
	requested := strings.Fields(u.Query().Get("scope"))
	slices.Sort(requested)
	if !slices.Equal(requested, []string{"sessions:read", "sessions:write"}) {
		t.Errorf("step-up requested scope %q", u.Query().Get("scope"))
	}
	slices.Sort(got.Scopes)
	if !slices.Equal(got.Scopes, []string{"sessions:read", "sessions:write"}) {
		t.Errorf("tool saw %+v", got)
	}
}
