package codemode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
)

const listToolsBody = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`

// mcpHeaders makes a raw POST look like the 2026-07-28 protocol.
func mcpHeaders(token string) map[string]string {
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return h
}

func TestPrincipalFromBearerToken(t *testing.T) {
	ts := startServer(t, nil)
	cs := ts.connect(t, ts.token("alice", allScopes...), nil)
	res := run(t, cs, `return (await brakinglab.getSessions({limit: 1})).length`)
	if res.IsError {
		t.Fatal(text(res))
	}
	if got := ts.cat.lastUser.Load(); got != "alice" {
		t.Fatalf("handler saw subject %v, want alice", got)
	}
	for _, ev := range ts.audit.all() {
		if ev.Subject != "alice" || ev.ClientID == "" {
			t.Fatalf("audit event %s: subject %q client %q", ev.Kind, ev.Subject, ev.ClientID)
		}
	}
}

func TestAuthChallenges(t *testing.T) {
	ts := startServer(t, func(o *codemode.Options) { o.Auth.Scopes = []string{scopeRead} })
	prm := strings.Replace(ts.URL, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1)
	tests := []struct {
		name      string
		token     string
		status    int
		challenge string
	}{
		{"no token", "", 401, `Bearer scope="reports:write sessions:delete sessions:read", resource_metadata="` + prm + `"`},
		{"bad token", "not-a-jwt", 401, `error="invalid_token"`},
		{"token for another audience", ts.issuer.Mint("https://other.example/mcp"), 401, `error="invalid_token"`},
		{"missing required scope", ts.token("bob", scopeWrite), 403, `error="insufficient_scope", error_description="token lacks required scope: sessions:read", scope="sessions:read"`},
		{"valid", ts.token("bob", scopeRead), 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := rawPost(t, ts.URL, listToolsBody, mcpHeaders(tt.token))
			if resp.StatusCode != tt.status {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, b)
			}
			if got := resp.Header.Get("WWW-Authenticate"); !strings.Contains(got, tt.challenge) {
				t.Fatalf("WWW-Authenticate = %q, want it to contain %q", got, tt.challenge)
			}
		})
	}

	// The metadata the challenge points to is served, naming the issuer.
	resp, err := http.Get(prm)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&meta); err != nil || meta.Resource != ts.Resource || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != ts.issuer.URL {
		t.Fatalf("metadata %+v, %v", meta, err)
	}
	if strings.Join(meta.ScopesSupported, " ") != "reports:write sessions:delete sessions:read" {
		t.Errorf("scopes_supported = %q", meta.ScopesSupported)
	}
}

func TestFunctionScopeErrorNamesTheScope(t *testing.T) {
	ts := startServer(t, nil)
	cs := ts.connect(t, ts.token("carol", scopeRead), nil)
	res := run(t, cs, `await brakinglab.deleteSession({sessionId: "s1"});`)
	if !res.IsError || !strings.Contains(text(res), "brakinglab.deleteSession requires scope sessions:delete") {
		t.Fatalf("result:\n%s", text(res))
	}
	if ts.cat.deleted.Load() != 0 {
		t.Fatal("the session was deleted without the scope")
	}
	// Caught, the error carries the missing scopes as data.
	res = run(t, cs, `try { await brakinglab.deleteSession({sessionId: "s1"}); } catch (e: any) { return e.missingScopes; }`)
	if res.IsError || !jsonEqual(structuredOf(t, res).Result, `["sessions:delete"]`) {
		t.Fatalf("result:\n%s", text(res))
	}
}

func TestCORS(t *testing.T) {
	ts := startServer(t, func(o *codemode.Options) { o.HTTP.AllowedOrigins = []string{"https://inspector.example"} })
	for _, tt := range []struct {
		origin  string
		allowed bool
	}{
		{"https://claude.ai", true},
		{"https://chatgpt.com", true},
		{"https://inspector.example", true},
		{"https://evil.example", false},
	} {
		req, _ := http.NewRequest(http.MethodOptions, ts.URL, nil)
		req.Header.Set("Origin", tt.origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,mcp-protocol-version,mcp-session-id")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := resp.Header.Get("Access-Control-Allow-Origin")
		if tt.allowed != (got == tt.origin) || (!tt.allowed && got != "") {
			t.Errorf("%s: Allow-Origin %q (status %d)", tt.origin, got, resp.StatusCode)
		}
		if tt.allowed && !strings.Contains(strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), "mcp-protocol-version") {
			t.Errorf("%s: Allow-Headers %q", tt.origin, resp.Header.Get("Access-Control-Allow-Headers"))
		}
	}
}

func TestRateLimit(t *testing.T) {
	ts := startServer(t, func(o *codemode.Options) { o.RateLimits.RatePerSecond, o.RateLimits.RateBurst = 0.001, 2 })
	alice, bob := ts.token("alice", allScopes...), ts.token("bob", allScopes...)
	for i, want := range []int{200, 200, 429} {
		resp := rawPost(t, ts.URL, callBody("return 1"), mcpHeaders(alice))
		if resp.StatusCode != want {
			t.Fatalf("request %d: status %d, want %d", i, resp.StatusCode, want)
		}
		if want == 429 && resp.Header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
	}
	if resp := rawPost(t, ts.URL, callBody("return 1"), mcpHeaders(bob)); resp.StatusCode != 200 {
		t.Fatalf("bob limited by alice's requests: %d", resp.StatusCode)
	}
}

func TestBodyLimit(t *testing.T) {
	ts := startServer(t, func(o *codemode.Options) { o.HTTP.MaxBodyBytes = 4 << 10 })
	tok := ts.token("alice", allScopes...)
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":"` + strings.Repeat("x", 8<<10) + `"}}}`
	if resp := rawPost(t, ts.URL, big, mcpHeaders(tok)); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", resp.StatusCode)
	}
	if resp := rawPost(t, ts.URL, listToolsBody, mcpHeaders(tok)); resp.StatusCode != 200 {
		t.Fatalf("small request: %d", resp.StatusCode)
	}
}

func TestDNSRebindingGuard(t *testing.T) {
	ts := startServer(t, nil)
	tok := ts.token("alice", allScopes...)
	h := mcpHeaders(tok)
	h["Host"] = "attacker.example"
	if resp := rawPost(t, ts.URL, listToolsBody, h); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d, want 403", resp.StatusCode)
	}

	// The documented escape hatch for tunnels.
	ts = startServer(t, func(o *codemode.Options) { o.HTTP.DisableLocalhostProtection = true })
	tok = ts.token("alice", allScopes...)
	h = mcpHeaders(tok)
	h["Host"] = "tunnel.example"
	if resp := rawPost(t, ts.URL, listToolsBody, h); resp.StatusCode != 200 {
		t.Fatalf("with DisableLocalhostProtection: status %d, want 200", resp.StatusCode)
	}
}

func TestFixedPrincipalWithoutAuth(t *testing.T) {
	p := principal("dev", allScopes...)
	ts := startServer(t, func(o *codemode.Options) { o.Auth, o.Principal = nil, &p })
	cs := ts.connect(t, "", nil)
	if res := run(t, cs, `return (await brakinglab.getSessions({})).length`); res.IsError {
		t.Fatal(text(res))
	}
	if got := ts.cat.lastUser.Load(); got != "dev" {
		t.Fatalf("subject %v, want dev", got)
	}
}

func TestAnonymousCatalogServedWithoutIdentity(t *testing.T) {
	cat, err := catalog.New("open", &catalog.Options{AllowAnonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	catalog.MustAdd(cat, catalog.Func[struct{}, string]{Name: "hello", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, _ struct{}) (string, error) {
			_, signedIn := catalog.PrincipalFrom(ctx)
			return fmt.Sprint("signed in: ", signedIn), nil
		}})
	ts := startServerFor(t, cat, func(o *codemode.Options) { o.Auth = nil })
	cs := ts.connect(t, "", nil)
	if res := run(t, cs, `return await open.hello({})`); res.IsError || !strings.Contains(text(res), "signed in: false") {
		t.Fatalf("anonymous call: %s", text(res))
	}
}

// Anonymous callers are rate-limited per client address: with
// Options.HTTP.ClientAddress, two clients behind one proxy have a budget each.
func TestAnonymousLimitPerClientAddress(t *testing.T) {
	cat, err := catalog.New("open", &catalog.Options{AllowAnonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	catalog.MustAdd(cat, catalog.Func[struct{}, string]{Name: "hello", Tier: catalog.ReadOnly,
		Handler: func(context.Context, struct{}) (string, error) { return "hi", nil }})
	ts := startServerFor(t, cat, func(o *codemode.Options) {
		o.Auth = nil
		o.RateLimits.RatePerSecond, o.RateLimits.RateBurst = 0.001, 2
		o.HTTP.ClientAddress = func(r *http.Request) string { return r.Header.Get("X-Test-Client") }
	})
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":"return 1"}}}`
	status := func(client string) int {
		resp := rawPost(t, ts.URL, call, map[string]string{"X-Test-Client": client})
		resp.Body.Close()
		return resp.StatusCode
	}
	for i, want := range []int{200, 200, 429} {
		if got := status("198.51.100.1"); got != want {
			t.Fatalf("client 1, execution %d: status %d, want %d", i+1, got, want)
		}
	}
	if got := status("198.51.100.2"); got != 200 {
		t.Errorf("client 2 behind the same proxy: status %d, want 200 (a budget of its own)", got)
	}
}

// A 2025-06-18 client (initialize, then tools/call without a session id)
// is served by the default stateless handler, like 2026-07-28 clients.
func TestOlderProtocolRevision(t *testing.T) {
	ts := startServer(t, nil)
	h := mcpHeaders(ts.token("alice", allScopes...))
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`
	resp := rawPost(t, ts.URL, init, h)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	h["Mcp-Protocol-Version"] = "2025-06-18"
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":"return (await brakinglab.getSessions({})).length"}}}`
	resp = rawPost(t, ts.URL, call, h)
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"structuredContent":{"result":5`) {
		t.Fatalf("tools/call: %d %s", resp.StatusCode, body)
	}
}

// Options.HTTP.Stateful opens a session for every client before 2026-07-28,
// one without elicitation too.
func TestStatefulSessions(t *testing.T) {
	ts := startServer(t, func(o *codemode.Options) { o.HTTP.Stateful = true })
	cs := ts.connectAt(t, ts.token("alice", allScopes...), "2025-11-25", nil)
	if cs.ID() == "" {
		t.Fatal("no Mcp-Session-Id in stateful mode")
	}
	if res := run(t, cs, coachingTS); res.IsError {
		t.Fatal(text(res))
	}
	if got := ts.cat.lastUser.Load(); got != "alice" {
		t.Fatalf("subject %v", got)
	}
}

func TestTraceparentJoinsTheCallersTrace(t *testing.T) {
	ts := startServer(t, nil)
	h := mcpHeaders(ts.token("alice", allScopes...))
	h["Traceparent"] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":"return 1"}}}`
	if resp := rawPost(t, ts.URL, call, h); resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	evs := ts.audit.all()
	if len(evs) != 2 || evs[0].TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || evs[1].TraceID != evs[0].TraceID {
		t.Fatalf("events %+v", evs)
	}
}

func TestAuthServerMetadataServed(t *testing.T) {
	var meta *oauthex.AuthServerMeta
	ts := startServer(t, func(o *codemode.Options) {
		// A service that is its own authorization server.
		meta = &oauthex.AuthServerMeta{
			Issuer:                        strings.TrimSuffix(o.Auth.Resource, "/mcp"),
			AuthorizationEndpoint:         strings.TrimSuffix(o.Auth.Resource, "/mcp") + "/authorize",
			TokenEndpoint:                 strings.TrimSuffix(o.Auth.Resource, "/mcp") + "/token",
			ResponseTypesSupported:        []string{"code"},
			CodeChallengeMethodsSupported: []string{"S256"},
		}
		o.Auth.AuthServer = meta
	})
	resp, err := http.Get(strings.TrimSuffix(ts.URL, "/mcp") + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got oauthex.AuthServerMeta
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || got.Issuer != meta.Issuer || got.TokenEndpoint != meta.TokenEndpoint {
		t.Fatalf("metadata %+v, %v", got, err)
	}
}
