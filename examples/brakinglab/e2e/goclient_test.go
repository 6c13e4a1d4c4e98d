package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// grantRecorder is an http.RoundTripper that records the grant_type of
// every token-endpoint request the OAuth client makes.
type grantRecorder struct {
	mu     sync.Mutex
	grants []string
}

func (g *grantRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/token") && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		if v, err := url.ParseQuery(string(body)); err == nil {
			g.mu.Lock()
			g.grants = append(g.grants, v.Get("grant_type"))
			g.mu.Unlock()
		}
		req.Body = io.NopCloser(strings.NewReader(string(body)))
	}
	return http.DefaultTransport.RoundTrip(req)
}

func (g *grantRecorder) count(grant string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, x := range g.grants {
		if x == grant {
			n++
		}
	}
	return n
}

// goOAuthClient returns the go-sdk's own authorization-code handler,
// registering dynamically with a loopback redirect URI. Its code fetcher
// signs in as user and presses Allow through the real HTML forms.
func goOAuthClient(t *testing.T, s *server, user string, rec *grantRecorder) *auth.AuthorizationCodeHandler {
	t.Helper()
	redirect := "http://127.0.0.1:53682/callback" // never contacted: the fetcher reads the Location header
	hc := &http.Client{Transport: rec}
	browser := browserClient()
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				ClientName:              "BrakingLab e2e (go-sdk)",
				RedirectURIs:            []string{redirect},
				GrantTypes:              []string{"authorization_code", "refresh_token"},
				ResponseTypes:           []string{"code"},
				TokenEndpointAuthMethod: "none",
			},
		},
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			res, err := signInAndDecide(ctx, browser, s.Base, args.URL, user, s.Users[user], "Allow")
			if err != nil {
				return nil, err
			}
			q := res.Redirect.Query()
			if q.Get("error") != "" {
				return nil, fmt.Errorf("authorization failed: %s: %s", q.Get("error"), q.Get("error_description"))
			}
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
		RequestRefreshToken: true,
		Client:              hc,
		// Treat a token as expired exactly when it expires (the oauth2
		// default is 10 s early), so the refresh below happens because the
		// server-issued lifetime ran out.
		NewTokenSource: func(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			return oauth2.ReuseTokenSourceWithExpiry(tok, cfg.TokenSource(ctx, tok), time.Nanosecond), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// executeCode calls execute_code and returns the script's return value
// (structuredContent.result) and its console output (structuredContent.logs,
// one line each). A tool error fails the test.
func executeCode(t *testing.T, ctx context.Context, cs *mcp.ClientSession, code string) (value json.RawMessage, logs string) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{"code": code}})
	if err != nil {
		t.Fatalf("execute_code: %v", err)
	}
	if res.IsError {
		t.Fatalf("execute_code returned an error:\n%s", toolText(res))
	}
	var out struct {
		Result json.RawMessage `json:"result"`
		Logs   []string        `json:"logs"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil || out.Result == nil {
		t.Fatalf("execute_code structuredContent %s: want {result, logs} (%v)", raw, err)
	}
	return out.Result, strings.Join(out.Logs, "\n")
}

// toolText joins the text blocks of a tool result.
func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// tokenClient connects the go-sdk client impl, with opts, to mcpURL on
// revision 2026-07-28 (which BrakingLab serves statelessly), sending
// token as a bearer token. The session closes when the test ends.
func tokenClient(t *testing.T, ctx context.Context, mcpURL, token string, impl *mcp.Implementation, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(impl, opts).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: mcpURL, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: bearerTransport(token)},
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestGoSDKClientOAuthAndCoachingScript is the Go client story:
// 401 → metadata → registration → sign-in and consent through the HTML
// forms → token → execute_code with the unmodified coaching script as demo →
// the report is listed by getCoachingReports → the access token expires and
// the client refreshes it.
func TestGoSDKClientOAuthAndCoachingScript(t *testing.T) {
	const ttl = 5 * time.Second
	s := startServer(t, "-access-token-ttl", ttl.String())
	if s.Users["demo"] == "" {
		t.Fatalf("banner names no password for demo:\n%s", s.stdout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// Without a token the endpoint answers 401 with a pointer to its metadata.
	resp, err := http.Post(s.MCPURL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Fatalf("unauthenticated POST: status %d, WWW-Authenticate %q; want 401 with resource_metadata", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}

	rec := &grantRecorder{}
	h := goOAuthClient(t, s, "demo", rec)
	client := mcp.NewClient(&mcp.Implementation{Name: "brakinglab-e2e-go", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.MCPURL, OAuthHandler: h, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect with OAuth: %v", err)
	}
	defer cs.Close()
	if n := rec.count("authorization_code"); n != 1 {
		t.Fatalf("authorization_code grants = %d, want 1", n)
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != "execute_code" {
		t.Fatalf("tools = %+v, want exactly execute_code", tools.Tools)
	}

	reportID, logs := runCoaching(t, ctx, cs)
	if !strings.Contains(logs, "Weakest corners") || !strings.Contains(logs, "Braking zones") {
		t.Errorf("coaching script logs lack its console.log lines:\n%s", logs)
	}

	listReports := `const reports = await brakinglab.getCoachingReports({ limit: 10 });
return reports.map((r: any) => r.id);`
	value, _ := executeCode(t, ctx, cs, listReports)
	if !containsID(t, value, reportID) {
		t.Fatalf("getCoachingReports returned %s, want it to include the saved report %v", value, reportID)
	}

	// Let the access token expire, then check the server refuses it and the
	// client refreshes instead of signing in again.
	ts, err := h.TokenSource(ctx)
	if err != nil || ts == nil {
		t.Fatalf("token source: %v", err)
	}
	old, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	if old.RefreshToken == "" {
		t.Fatal("the authorization server issued no refresh token")
	}
	if life := time.Until(old.Expiry); life > ttl+time.Second {
		t.Fatalf("access token lives %v, want at most the configured %v", life, ttl)
	}
	// A slow machine may already have re-authorized once, if a request
	// reached the server just after a token expired; what matters is that
	// the expiry below is handled by a refresh, not by signing in again.
	codeGrants := rec.count("authorization_code")
	time.Sleep(time.Until(old.Expiry) + 1500*time.Millisecond)
	if code := postWithToken(t, s.MCPURL, old.AccessToken); code != http.StatusUnauthorized {
		t.Errorf("expired access token: status %d, want 401", code)
	}

	value, _ = executeCode(t, ctx, cs, listReports)
	if !containsID(t, value, reportID) {
		t.Fatalf("after refresh getCoachingReports returned %s, want %v", value, reportID)
	}
	if n := rec.count("refresh_token"); n < 1 {
		t.Errorf("refresh_token grants = %d, want at least 1", n)
	}
	if n := rec.count("authorization_code"); n != codeGrants {
		t.Errorf("authorization_code grants = %d after expiry, want still %d (refresh, not a new sign-in)", n, codeGrants)
	}
	fresh, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	if fresh.AccessToken == old.AccessToken || fresh.RefreshToken == old.RefreshToken {
		t.Error("refresh did not rotate both the access token and the refresh token")
	}
}

// containsID reports whether the JSON array value contains id.
func containsID(t *testing.T, value json.RawMessage, id any) bool {
	t.Helper()
	var ids []any
	if err := json.Unmarshal(value, &ids); err != nil {
		t.Fatalf("want a JSON array, got %s", value)
	}
	for _, x := range ids {
		if fmt.Sprint(x) == fmt.Sprint(id) {
			return true
		}
	}
	return false
}

// postWithToken sends an initialize request with a bearer token and returns
// the status code.
func postWithToken(t *testing.T, mcpURL, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, mcpURL, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// runCoaching runs testdata/coaching.ts on cs and returns the id of the
// report it saved and its console output. It fails the test unless the
// script returned a report id and a number of corners above zero.
func runCoaching(t *testing.T, ctx context.Context, cs *mcp.ClientSession) (reportID any, logs string) {
	t.Helper()
	script, err := os.ReadFile(filepath.Join("..", "testdata", "coaching.ts"))
	if err != nil {
		t.Fatal(err)
	}
	value, logs := executeCode(t, ctx, cs, string(script))
	var saved struct {
		ReportID any `json:"reportId"`
		Corners  int `json:"corners"`
	}
	if err := json.Unmarshal(value, &saved); err != nil || saved.ReportID == nil || saved.Corners == 0 {
		t.Fatalf("coaching script returned %s (%v), want {reportId, corners>0}; logs:\n%s", value, err, logs)
	}
	return saved.ReportID, logs
}
