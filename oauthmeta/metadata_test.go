package oauthmeta_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/brakinglab/codemode-go/oauthmeta"
	. "github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

func devAuthServer(issuer string) *oauthex.AuthServerMeta {
	return &oauthex.AuthServerMeta{
		Issuer:                        issuer,
		AuthorizationEndpoint:         issuer + "/authorize",
		TokenEndpoint:                 issuer + "/token",
		JWKSURI:                       issuer + "/jwks",
		RegistrationEndpoint:          issuer + "/register",
		ResponseTypesSupported:        []string{"code"},
		CodeChallengeMethodsSupported: []string{"S256"},
	}
}

func TestMountServesWellKnownRoutes(t *testing.T) {
	prm, err := oauthmeta.NewResourceMetadata(oauthmeta.ResourceConfig{
		Resource:              testResource,
		AuthorizationServers:  []string{"https://coach.example.com/auth"},
		ScopesSupported:       []string{"sessions:read", "sessions:write"},
		ResourceName:          "BrakingLab",
		ResourceDocumentation: "https://coach.example.com/docs",
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	if err := oauthmeta.Mount(mux, prm, devAuthServer("https://coach.example.com/auth")); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, path := range []string{
		"/.well-known/oauth-protected-resource/mcp",
		"/.well-known/oauth-protected-resource",
	} {
		resp := fetchDoc(t, srv.URL+path)
		var got map[string]any
		if err := json.Unmarshal([]byte(resp.body), &got); resp.status != 200 || err != nil {
			t.Fatalf("GET %s: %d %s", path, resp.status, resp.body)
		}
		if got["resource"] != testResource || got["resource_name"] != "BrakingLab" ||
			!equalJSONList(got["authorization_servers"], "https://coach.example.com/auth") ||
			!equalJSONList(got["scopes_supported"], "sessions:read", "sessions:write") ||
			!equalJSONList(got["bearer_methods_supported"], "header") {
			t.Errorf("GET %s: %v", path, got)
		}
		if resp.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s: no CORS header", path)
		}
	}
	for _, path := range []string{
		"/.well-known/oauth-authorization-server/auth",
		"/auth/.well-known/oauth-authorization-server",
	} {
		resp := fetchDoc(t, srv.URL+path)
		var got oauthex.AuthServerMeta
		if err := json.Unmarshal([]byte(resp.body), &got); resp.status != 200 || err != nil {
			t.Fatalf("GET %s: %d %s", path, resp.status, resp.body)
		}
		if got.Issuer != "https://coach.example.com/auth" || !slices.Equal(got.CodeChallengeMethodsSupported, []string{"S256"}) {
			t.Errorf("GET %s: %+v", path, got)
		}
	}
	resp, err := http.Post(srv.URL+"/.well-known/oauth-authorization-server/auth", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}
	if err := oauthmeta.Mount(mux, prm, nil); err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Errorf("second Mount: %v", err)
	}
}

func equalJSONList(v any, want ...string) bool {
	list, ok := v.([]any)
	if !ok || len(list) != len(want) {
		return false
	}
	for i, e := range list {
		if e != want[i] {
			return false
		}
	}
	return true
}

func TestMountRejectsBadMetadata(t *testing.T) {
	good := func() *oauthex.ProtectedResourceMetadata {
		return &oauthex.ProtectedResourceMetadata{Resource: testResource, AuthorizationServers: []string{"https://as.example.com"}}
	}
	tests := []struct {
		name string
		prm  *oauthex.ProtectedResourceMetadata
		asm  *oauthex.AuthServerMeta
		want string
	}{
		{"nil metadata", nil, nil, "nil"},
		{"no authorization servers", &oauthex.ProtectedResourceMetadata{Resource: testResource}, nil, "authorization_servers is empty"},
		{"plain http resource", &oauthex.ProtectedResourceMetadata{Resource: "http://coach.example.com/mcp", AuthorizationServers: []string{"https://as.example.com"}}, nil, "https"},
		{"resource with fragment", &oauthex.ProtectedResourceMetadata{Resource: testResource + "#f", AuthorizationServers: []string{"https://as.example.com"}}, nil, "fragment"},
		{"javascript authorization server", &oauthex.ProtectedResourceMetadata{Resource: testResource, AuthorizationServers: []string{"javascript:alert(1)"}}, nil, "authorization_servers[0]"},
		{"no PKCE", good(), func() *oauthex.AuthServerMeta {
			m := devAuthServer("https://as.example.com")
			m.CodeChallengeMethodsSupported = []string{"plain"}
			return m
		}(), "S256"},
		{"no token endpoint", good(), func() *oauthex.AuthServerMeta {
			m := devAuthServer("https://as.example.com")
			m.TokenEndpoint = ""
			return m
		}(), "token_endpoint is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mux := http.NewServeMux()
			err := oauthmeta.Mount(mux, tt.prm, tt.asm)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want it to mention %q", err, tt.want)
			}
			// Nothing was registered.
			if _, pattern := mux.Handler(httptest.NewRequest("GET", "/.well-known/oauth-protected-resource", nil)); pattern != "" {
				t.Errorf("route %q registered despite the error", pattern)
			}
		})
	}
}

func TestResourceMetadataURL(t *testing.T) {
	tests := []struct{ resource, want string }{
		{"https://x.example.com/mcp", "https://x.example.com/.well-known/oauth-protected-resource/mcp"},
		{"https://x.example.com/api/mcp/", "https://x.example.com/.well-known/oauth-protected-resource/api/mcp"},
		{"https://x.example.com", "https://x.example.com/.well-known/oauth-protected-resource"},
		{"http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"},
	}
	for _, tt := range tests {
		got, err := oauthmeta.ResourceMetadataURL(tt.resource)
		if err != nil || got != tt.want {
			t.Errorf("ResourceMetadataURL(%q) = %q, %v; want %q", tt.resource, got, err, tt.want)
		}
	}
	if _, err := oauthmeta.ResourceMetadataURL("http://x.example.com/mcp"); err == nil {
		t.Error("plain http accepted")
	}
}

func TestMetadataURLs(t *testing.T) {
	tests := []struct {
		issuer string
		want   []string
	}{
		{"https://as.example.com", []string{
			"https://as.example.com/.well-known/oauth-authorization-server",
			"https://as.example.com/.well-known/openid-configuration",
		}},
		{"https://as.example.com/tenant/1", []string{
			"https://as.example.com/.well-known/oauth-authorization-server/tenant/1",
			"https://as.example.com/.well-known/openid-configuration/tenant/1",
			"https://as.example.com/tenant/1/.well-known/openid-configuration",
		}},
	}
	for _, tt := range tests {
		got, err := oauthmeta.MetadataURLs(tt.issuer)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("MetadataURLs(%q) = %q, %v", tt.issuer, got, err)
		}
	}
}

func TestFetchIssuerMetadata(t *testing.T) {
	ctx := context.Background()
	for _, opts := range []*Options{nil, {NoRFC8414: true}, {Path: "/t"}, {Path: "/t", NoRFC8414: true}} {
		iss := NewIssuer(t, opts)
		meta, err := oauthmeta.FetchIssuerMetadata(ctx, iss.URL, nil)
		if err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
		if meta.Issuer != iss.URL || meta.JWKSURI != iss.JWKSURL {
			t.Errorf("%+v: %+v", opts, meta)
		}
	}

	// A document naming another issuer is refused (RFC 8414 §3.3).
	impostor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": "https://as.example.com", "jwks_uri": "https://as.example.com/jwks"})
	}))
	defer impostor.Close()
	if _, err := oauthmeta.FetchIssuerMetadata(ctx, impostor.URL, nil); err == nil || !strings.Contains(err.Error(), "names issuer") {
		t.Errorf("impostor: %v", err)
	}

	// Nothing served: a clear error that says why.
	empty := httptest.NewServer(http.NotFoundHandler())
	defer empty.Close()
	if _, err := oauthmeta.FetchIssuerMetadata(ctx, empty.URL, nil); !errors.Is(err, oauthmeta.ErrUnavailable) {
		t.Errorf("no metadata: %v", err)
	}
}

func TestMetadataCache(t *testing.T) {
	iss := NewIssuer(t, nil)
	clk := newClock()
	c := oauthmeta.NewMetadataCache(&oauthmeta.MetadataCacheOptions{Now: clk.Now})
	ctx := context.Background()
	for range 5 {
		if _, err := c.Get(ctx, iss.URL); err != nil {
			t.Fatal(err)
		}
	}
	if n := iss.MetadataFetches(); n != 1 {
		t.Fatalf("%d fetches, want 1", n)
	}
	clk.Advance(2 * time.Hour)
	if _, err := c.Get(ctx, iss.URL); err != nil {
		t.Fatal(err)
	}
	if n := iss.MetadataFetches(); n != 2 {
		t.Fatalf("%d fetches after the TTL, want 2", n)
	}
	// The issuer goes away: stale metadata keeps being served.
	iss.Close()
	clk.Advance(2 * time.Hour)
	if m, err := c.Get(ctx, iss.URL); err != nil || m.Issuer != iss.URL {
		t.Fatalf("stale: %v, %v", m, err)
	}
}

// doc is an answer to an unauthenticated GET.
type doc struct {
	status int
	body   string
	header http.Header
}

func fetchDoc(t *testing.T, url string) doc {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc{resp.StatusCode, string(b), resp.Header}
}

// clock is a settable time source for caches under test.
type clock struct{ offset atomic.Int64 }

func (c *clock) Now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) Advance(d time.Duration) { c.offset.Add(int64(d)) }
func newClock() *clock                   { return &clock{} }
