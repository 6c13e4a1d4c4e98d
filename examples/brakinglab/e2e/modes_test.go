package e2e

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

func TestPrintTypes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "brakinglab.db")
	stdout, stderr, code := runBinary(t, "", "-print-types", "-db", db)
	if code != 0 {
		t.Fatalf("-print-types exited %d: %s", code, stderr)
	}
	if _, err := os.Stat(db); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("-print-types touched the -db file (stat: %v); printing must not create or seed a database", err)
	}
	for _, want := range []string{"declare namespace brakinglab", "getSessions", "saveCoachingReport"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("-print-types output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "level=") {
		t.Errorf("log lines leaked into the declarations on stdout:\n%s", stdout)
	}
}

func TestNoAuthRefusedOffLoopback(t *testing.T) {
	_, stderr, code := runBinary(t, "", "-insecure-no-auth", "-addr", "0.0.0.0:0")
	if code != 2 || !strings.Contains(stderr, "refuses to listen") {
		t.Fatalf("exit %d, stderr %q; want 2 and a refusal", code, stderr)
	}
}

// TestStdio serves one client over stdin/stdout as demo, as Claude Desktop
// would run it.
func TestStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command(binary, "-stdio", "-user", "demo", "-db", filepath.Join(t.TempDir(), "lab.db"))
	cmd.Env = cleanEnv()
	client := mcp.NewClient(&mcp.Implementation{Name: "brakinglab-e2e-stdio", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v", err)
	}
	defer cs.Close()
	value, _ := executeCode(t, ctx, cs, `const s = await brakinglab.getSessions({ trackName: "Spa", limit: 2 });
return s.length;`)
	if string(value) != "2" {
		t.Errorf("getSessions over stdio returned %s, want 2", value)
	}
}

// freePort returns a loopback port that was free a moment ago, for tests
// that must restart the server on the same address (the issuer and the
// resource URL include the port).
func freePort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// accessToken runs the authorization-code flow over HTTP and returns an
// access token for user with the given scopes (all supported if none).
func accessToken(t *testing.T, s *server, user string, scopes ...string) string {
	t.Helper()
	d := discover(t, s)
	const redirect = "http://127.0.0.1:53685/callback"
	clientID := register(t, d, "BrakingLab e2e token helper", redirect)
	if len(scopes) > 0 {
		d.Scopes = scopes
	}
	ar := newAuthRequest(d, clientID, redirect)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := signInAndDecide(ctx, browserClient(), s.Base, ar.URL, user, s.Users[user], "Allow")
	if err != nil {
		t.Fatal(err)
	}
	return exchange(t, d, clientID, redirect, res.Redirect.Query().Get("code"), ar.Verifier)
}

// TestTokenForAnotherServerRejected: a token issued by one BrakingLab (its
// issuer, its resource) is refused by another with invalid_token.
func TestTokenForAnotherServerRejected(t *testing.T) {
	a, b := startServer(t), startServer(t)
	tok := accessToken(t, a, "demo")
	if code := postWithToken(t, a.MCPURL, tok); code != http.StatusOK {
		t.Fatalf("own server: status %d, want 200", code)
	}
	req, _ := http.NewRequest(http.MethodPost, b.MCPURL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("other server: status %d, WWW-Authenticate %q; want 401 invalid_token", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

// TestRestartKeepsTokens: the signing key and the data live in the
// database, so a token issued before a restart on the same address still
// works after it, and the demo data is not seeded twice.
func TestRestartKeepsTokens(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lab.db")
	addr := "127.0.0.1:" + freePort(t)
	first := startServer(t, "-db", db, "-addr", addr)
	tok := accessToken(t, first, "demo")
	first.stop(t)

	second := startServer(t, "-db", db, "-addr", addr)
	if second.MCPURL != first.MCPURL {
		t.Fatalf("restarted at %s, first run was %s", second.MCPURL, first.MCPURL)
	}
	if code := postWithToken(t, second.MCPURL, tok); code != http.StatusOK {
		t.Errorf("token from before the restart: status %d, want 200", code)
	}
	if strings.Contains(second.stderr.String(), "seeded demo data") {
		t.Error("the second start seeded the demo data again")
	}
}

// TestExternalIssuer trusts an external OAuth issuer (a loopback test
// issuer) instead of the built-in one: the resource metadata points at it,
// its tokens for this resource are accepted and give the user an account of
// their own, and its tokens for another audience are refused.
func TestExternalIssuer(t *testing.T) {
	iss := oauthmetatest.NewIssuer(t, nil)
	addr := "127.0.0.1:" + freePort(t)
	s := startServer(t, "-addr", addr, "-issuer", iss.URL)
	if strings.Contains(s.stdout.String(), "(password:") {
		t.Errorf("banner offers demo passwords although sign-in happens at %s:\n%s", iss.URL, s.stdout)
	}

	var prm struct {
		AuthorizationServers []string `json:"authorization_servers"`
	}
	getJSON(t, s.Base+"/.well-known/oauth-protected-resource/mcp", &prm)
	if len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != iss.URL {
		t.Errorf("authorization_servers = %v, want [%s]", prm.AuthorizationServers, iss.URL)
	}
	resp, err := http.Get(s.Base + "/authorize")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /authorize with an external issuer: status %d, want 404 (no built-in server)", resp.StatusCode)
	}

	if code := postWithToken(t, s.MCPURL, iss.Mint("https://other.example/mcp", oauthmetatest.WithScope("brakinglab:read"))); code != http.StatusUnauthorized {
		t.Errorf("token for another audience: status %d, want 401", code)
	}

	tok := iss.Mint(s.MCPURL, oauthmetatest.WithScope("brakinglab:read brakinglab:write"), oauthmetatest.WithClaim("sub", "driver-42"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hc := &http.Client{Transport: bearerTransport(tok)}
	client := mcp.NewClient(&mcp.Implementation{Name: "brakinglab-e2e-external", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.MCPURL, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect with the external token: %v", err)
	}
	defer cs.Close()
	value, _ := executeCode(t, ctx, cs, `const s = await brakinglab.getSessions({}); return s.length;`)
	if string(value) != "0" {
		t.Errorf("a new external user sees %s sessions, want 0 (their own, empty account)", value)
	}
}

// bearerTransport adds a fixed bearer token to every request.
type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestReadScopeCannotWrite: a token granted only brakinglab:read runs
// READ-ONLY functions, and a CREATIVE one fails inside the script with a
// scope error the model can read; nothing is saved.
func TestReadScopeCannotWrite(t *testing.T) {
	s := startServer(t)
	tok := accessToken(t, s, "demo", "brakinglab:read")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "brakinglab-e2e-readonly", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.MCPURL,
		HTTPClient: &http.Client{Transport: bearerTransport(tok)}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	value, _ := executeCode(t, ctx, cs, `return (await brakinglab.getCoachingReports({})).length;`)
	before := string(value)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{
		"code": `const s = await brakinglab.getSessions({ trackName: "Spa", limit: 1 });
return await brakinglab.saveCoachingReport({ sessionId: s[0].id,
  overview: { assessment: "good", summary: "x" },
  pace: { bestLapMs: 1, averageLapMs: 1, consistencyPct: 1, improvementTrend: "stable" },
  corners: [], actionItems: [] });`,
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("model sees:\n%s", toolText(res))
	if text := toolText(res); !res.IsError || !strings.Contains(text, "brakinglab:write") {
		t.Errorf("saveCoachingReport with a read-only token: isError=%v\n%s\nwant an error naming brakinglab:write", res.IsError, text)
	}
	value, _ = executeCode(t, ctx, cs, `return (await brakinglab.getCoachingReports({})).length;`)
	if string(value) != before {
		t.Errorf("coaching reports went from %s to %s: a read-only token saved one", before, value)
	}
}

// TestStdioStopsOnSIGTERM: a stdio server waiting for its client exits
// cleanly on SIGTERM.
func TestStdioStopsOnSIGTERM(t *testing.T) {
	cmd := exec.Command(binary, "-stdio", "-user", "demo", "-db", filepath.Join(t.TempDir(), "lab.db"))
	cmd.Env = cleanEnv()
	stdin, err := cmd.StdinPipe() // kept open: the client is still connected
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "serving MCP over stdio") {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	rest, _ := io.ReadAll(stderr) // until the process exits; Wait must come after the reads
	log.Write(rest)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("stdio server after SIGTERM: %v\n%s", err, log.String())
	}
}
