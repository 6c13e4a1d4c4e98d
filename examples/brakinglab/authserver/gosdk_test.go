package authserver

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/oauthmeta"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
	"github.com/brakinglab/codemode-go/oauthmeta/jwtverify"
)

type whoami struct {
	Subject  string   `json:"subject"`
	ClientID string   `json:"clientId"`
	Scopes   []string `json:"scopes"`
}

// mountMCP adds a protected go-sdk MCP endpoint at /mcp whose one tool
// reports the caller, plus its RFC 9728 metadata, and counts token grants.
func mountMCP(grants map[string]*atomic.Int32) func(e *env, mux *http.ServeMux) {
	return func(e *env, mux *http.ServeMux) {
		server := mcp.NewServer(&mcp.Implementation{Name: "authserver-test", Version: "1"}, nil)
		mcp.AddTool(server, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, whoami, error) {
			p, _ := catalog.PrincipalFrom(ctx)
			return nil, whoami{p.Subject, p.ClientID, p.Scopes}, nil
		})
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})
		prm, err := oauthmeta.NewResourceMetadata(oauthmeta.ResourceConfig{
			Resource: e.Resource(), AuthorizationServers: []string{e.URL()}, ScopesSupported: []string{ScopeRead, ScopeWrite},
		})
		if err != nil {
			e.t.Fatal(err)
		}
		if err := oauthmeta.Mount(mux, prm, nil); err != nil {
			e.t.Fatal(err)
		}
		prmURL, _ := oauthmeta.ResourceMetadataURL(e.Resource())
		v, err := jwtverify.New(e.URL(), e.Resource(), &jwtverify.Options{Algorithms: []string{"ES256"}})
		if err != nil {
			e.t.Fatal(err)
		}
		mux.Handle("/mcp", bearer.RequireBearer(v, &bearer.BearerOptions{ResourceMetadataURL: prmURL, Scopes: []string{ScopeRead}})(h))
		// Count grant types at the token endpoint, then let the server answer.
		tokenPath := "POST /token"
		mux.Handle(tokenPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := r.ParseForm(); err == nil {
				if c, ok := grants[r.PostForm.Get("grant_type")]; ok {
					c.Add(1)
				}
			}
			e.srv.ServeHTTP(w, r)
		}))
	}
}

// formFetcher answers the go-sdk client's authorization request the way a
// person would: sign in and press Allow through the HTML forms.
func formFetcher(t *testing.T, base, user, password string) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		c := browser()
		p := get(t, c, args.URL)
		if p.Status != http.StatusOK {
			return nil, errors.New("authorize: " + p.Body)
		}
		action, fields := formOf(t, p)
		fields.Set("username", user)
		fields.Set("password", password)
		p = postForm(t, c, base+action, fields)
		p = get(t, c, base+p.Location)
		if !strings.Contains(p.Body, `value="allow"`) {
			return nil, errors.New("no consent page: " + p.Body)
		}
		action, fields = formOf(t, p)
		fields.Set("action", "allow")
		p = postForm(t, c, base+action, fields)
		loc, err := url.Parse(p.Location)
		if err != nil || p.Status != http.StatusSeeOther {
			return nil, errors.New("no redirect after consent: " + p.Body)
		}
		q := loc.Query()
		return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
	}
}

// The go-sdk client, knowing only the MCP URL, goes 401 → resource metadata
// → this server's metadata → registration (DCR, or a client ID metadata
// document) → sign-in and consent → token → tool call; with access tokens
// that its token source treats as already expiring, every later call goes
// through a rotating refresh.
func TestGoSDKClient(t *testing.T) {
	t.Run("DCR", func(t *testing.T) { testGoSDKClient(t, false) })
	t.Run("CIMD", func(t *testing.T) { testGoSDKClient(t, true) })
}

func testGoSDKClient(t *testing.T, cimd bool) {
	const redirect = "http://127.0.0.1:9/callback"
	grants := map[string]*atomic.Int32{"authorization_code": {}, "refresh_token": {}}
	// Real time: the client's oauth2 token source uses the wall clock. A TTL
	// under oauth2's 10 s expiry margin makes it refresh before each use.
	opts := &Options{AccessTokenTTL: 9 * time.Second, Now: time.Now}
	cfg := &auth.AuthorizationCodeHandlerConfig{RedirectURL: redirect}
	wantClient := "dcr_"
	if cimd {
		host := newCIMDHost(t)
		docURL := host.ts.URL + "/go-sdk-client.json"
		host.docs["/go-sdk-client.json"] = map[string]any{
			"client_id": docURL, "client_name": "go-sdk CIMD client", "redirect_uris": []string{redirect},
			"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"},
		}
		opts.HTTPClient = host.ts.Client() // the document host is on loopback
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: docURL}
		wantClient = docURL
	} else {
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName:              "go-sdk test client",
			RedirectURIs:            []string{redirect},
			TokenEndpointAuthMethod: "none",
			GrantTypes:              []string{"authorization_code", "refresh_token"},
		}}
	}
	e := newEnvWith(t, filepath.Join(t.TempDir(), "sdk.db"), opts, mountMCP(grants))
	cfg.AuthorizationCodeFetcher = formFetcher(t, e.URL(), "demo", "demo-pass")
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "authserver-test-client", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.Resource(), OAuthHandler: h}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer session.Close()
	var clientID string
	for i := range 3 {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
		if err != nil || res.IsError {
			t.Fatalf("call %d: %v %+v", i, err, res)
		}
		m := res.StructuredContent.(map[string]any)
		if m["subject"] != "user-demo" || !strings.HasPrefix(m["clientId"].(string), wantClient) {
			t.Fatalf("tool saw %v", m)
		}
		var scopes []string
		for _, s := range m["scopes"].([]any) {
			scopes = append(scopes, s.(string))
		}
		// The client asks for the scope named in the 401 challenge.
		if !slices.Equal(scopes, []string{ScopeRead}) {
			t.Errorf("scopes %v", scopes)
		}
		clientID = m["clientId"].(string)
	}
	if n := grants["authorization_code"].Load(); n != 1 {
		t.Errorf("%d code exchanges, want 1", n)
	}
	if n := grants["refresh_token"].Load(); n < 2 {
		t.Errorf("%d refreshes, want at least 2", n)
	}
	var families, revoked int
	e.db.QueryRow(`SELECT COUNT(*), COUNT(revoked_at) FROM authserver_refresh_families WHERE client_id = ?`, clientID).Scan(&families, &revoked)
	if families != 1 || revoked != 0 {
		t.Errorf("%d families (%d revoked), want 1 live family", families, revoked)
	}
}
