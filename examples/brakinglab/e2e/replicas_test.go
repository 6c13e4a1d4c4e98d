package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/testtool"
	"github.com/brakinglab/codemode-go/internal/logtest"
	"github.com/brakinglab/codemode-go/internal/pgtest"
)

// proxy is Debian's nginx spreading requests round-robin over replicas,
// except those of an MCP session, which go to the replica that opened it.
type proxy struct {
	URL        string // e.g. http://127.0.0.1:41234
	accessLog  string // one line per request: upstream, method, path, status
	sessionLog string // one line per request: session id (- for none), upstream, method, status
}

// sessionPrefix is the -session-prefix of the i-th replica (from 0); the
// nginx map routes a session id starting with it to that replica.
func sessionPrefix(i int) string { return fmt.Sprintf("r%d.", i+1) }

// nginxBinary finds Debian's nginx: a failure in CI, a skip elsewhere.
func nginxBinary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	testtool.Need(t, "/usr/sbin/nginx", "nginx (Debian package nginx)")
	return "/usr/sbin/nginx"
}

// startNginx runs nginx in the foreground on 127.0.0.1:port with a
// generated configuration that proxies requests round-robin to upstreams,
// except that a request carrying an Mcp-Session-Id that starts with
// sessionPrefix(i) goes to upstreams[i] (the README shows the same), and
// stops it when the test ends.
func startNginx(t testing.TB, port string, upstreams ...string) *proxy {
	t.Helper()
	bin := nginxBinary(t)
	dir := t.TempDir()
	var servers, groups, routes strings.Builder
	for i, u := range upstreams {
		fmt.Fprintf(&servers, "    server %s;\n", u)
		fmt.Fprintf(&groups, "  upstream brakinglab_%d { server %s; keepalive 8; }\n", i+1, u)
		fmt.Fprintf(&routes, "    ~^%s brakinglab_%d;\n", strings.ReplaceAll(sessionPrefix(i), ".", `\.`), i+1)
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;" // workers would otherwise run as nobody, without access to dir
	}
	p := &proxy{URL: "http://127.0.0.1:" + port, accessLog: filepath.Join(dir, "access.log"), sessionLog: filepath.Join(dir, "sessions.log")}
	conf := fmt.Sprintf(`%[1]s
daemon off;
master_process on;
worker_processes 1;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log warn;
events { worker_connections 512; }
http {
  log_format upstream '$upstream_addr $request_method $uri $status';
  access_log %[3]s upstream;
  log_format session '$http_mcp_session_id $upstream_addr $request_method $status';
  access_log %[2]s/sessions.log session;
  client_body_temp_path %[2]s/body;
  proxy_temp_path %[2]s/proxy;
  fastcgi_temp_path %[2]s/fastcgi;
  uwsgi_temp_path %[2]s/uwsgi;
  scgi_temp_path %[2]s/scgi;
  upstream brakinglab {
%[4]s    keepalive 16;
  }
%[6]s  map $http_mcp_session_id $brakinglab_upstream {
    default brakinglab;
%[7]s  }
  server {
    listen 127.0.0.1:%[5]s;
    location / {
      proxy_pass http://$brakinglab_upstream;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_buffering off;
      proxy_read_timeout 300s;
      proxy_next_upstream off;
    }
  }
}
`, user, dir, p.accessLog, servers.String(), port, groups.String(), routes.String())
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-c", confPath, "-p", dir, "-e", filepath.Join(dir, "error.log"))
	out := &logtest.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGQUIT) // graceful stop
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			errLog, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Logf("nginx output:\n%s\nerror.log:\n%s", out, errLog)
		}
	})
	// Wait until nginx accepts connections (or has exited).
	for {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err == nil {
			c.Close()
			return p
		}
		select {
		case err := <-done:
			errLog, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx exited: %v\n%s\n%s", err, out, errLog)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// upstreams returns, per upstream address, how many logged requests
// matched method and a path starting with prefix.
func (p *proxy) upstreams(t *testing.T, method, prefix string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, fields := range logFields(t, p.accessLog) {
		if len(fields) == 4 && fields[1] == method && strings.HasPrefix(fields[2], prefix) {
			out[fields[0]]++
		}
	}
	return out
}

// logFields reads one of the proxy's logs and returns each line's
// fields.
func logFields(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, strings.Fields(sc.Text()))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// replicaSet is two BrakingLab processes on one PostgreSQL database behind
// nginx.
type replicaSet struct {
	front    *server // the proxy, as clients see it
	replicas []*server
	addrs    []string // each replica's own host:port
	proxy    *proxy
}

// startReplicas starts n BrakingLab processes on one fresh PostgreSQL
// database, all with the proxy's URL as their public URL and nginx (on
// loopback) as their trusted proxy, each with its own -session-prefix,
// and nginx in front of them. extra flags go to every replica.
func startReplicas(t testing.TB, n int, extra ...string) *replicaSet {
	t.Helper()
	nginxBinary(t) // fail or skip before starting anything
	dsn := pgtest.Start(t).NewDatabase(t)
	port := freePort(t)
	front := "http://127.0.0.1:" + port
	rs := &replicaSet{}
	for i := range n {
		addr := "127.0.0.1:" + freePort(t)
		args := append([]string{"-addr", addr, "-db", dsn, "-public-url", front, "-trusted-proxies", "127.0.0.1", "-session-prefix", sessionPrefix(i)}, extra...)
		// One after the other: the first migrates and seeds.
		rs.replicas = append(rs.replicas, startServer(t, args...))
		rs.addrs = append(rs.addrs, addr)
	}
	rs.proxy = startNginx(t, port, rs.addrs...)
	rs.front = &server{MCPURL: front + "/mcp", Base: front, Users: rs.replicas[0].Users}
	return rs
}

// startApprovalReplicas starts two replicas behind nginx that share an
// approval key (-approval-key-file), so that an approval sealed by one
// is accepted by the other.
func startApprovalReplicas(t testing.TB) *replicaSet {
	t.Helper()
	key := filepath.Join(t.TempDir(), "approval.key")
	if err := os.WriteFile(key, []byte(strings.Repeat("k", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	return startReplicas(t, 2, "-approval-key-file", key)
}

// tokenPair is a token endpoint answer.
type tokenPair struct {
	Status       int
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	Error        string `json:"error"`
}

func postToken(t *testing.T, tokenURL string, v url.Values) tokenPair {
	t.Helper()
	resp, err := http.PostForm(tokenURL, v)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var tp tokenPair
	if err := json.Unmarshal(raw, &tp); err != nil {
		t.Fatalf("token endpoint %s: %d %s", tokenURL, resp.StatusCode, raw)
	}
	tp.Status = resp.StatusCode
	return tp
}

// TestTwoReplicasBehindNginx is the proof that BrakingLab scales
// out: two processes on one PostgreSQL database behind nginx
// (round-robin). Through the proxy, the go-sdk client registers, signs in
// and consents through the HTML forms, runs the coaching script and lists
// its report, and refreshes its expired token, while consecutive requests
// land on alternate replicas. Then, replica by replica: a token minted by
// one works on the other, and a refresh token rotated on one and reused
// on the other revokes the grant on both.
func TestTwoReplicasBehindNginx(t *testing.T) {
	const ttl = 5 * time.Second
	rs := startReplicas(t, 2, "-access-token-ttl", ttl.String())
	front := rs.front
	if front.Users["demo"] == "" {
		t.Fatalf("banner names no password for demo:\n%s", rs.replicas[0].stdout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	rec := &grantRecorder{}
	h := goOAuthClient(t, front, "demo", rec)
	client := mcp.NewClient(&mcp.Implementation{Name: "brakinglab-e2e-replicas", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: front.MCPURL, OAuthHandler: h, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect with OAuth through the proxy: %v", err)
	}
	defer cs.Close()

	reportID, _ := runCoaching(t, ctx, cs)
	listReports := `const reports = await brakinglab.getCoachingReports({ limit: 10 });
return reports.map((r: any) => r.id);`
	// Twice, so both replicas answer: each must see the report the other saved.
	for range 2 {
		if value, _ := executeCode(t, ctx, cs, listReports); !containsID(t, value, reportID) {
			t.Fatalf("getCoachingReports returned %s, want it to include %v", value, reportID)
		}
	}

	// The access token expires; the client refreshes through the proxy.
	ts, err := h.TokenSource(ctx)
	if err != nil || ts == nil {
		t.Fatalf("token source: %v", err)
	}
	old, err := ts.Token()
	if err != nil || old.RefreshToken == "" {
		t.Fatalf("token: %v (refresh token %q)", err, old.RefreshToken)
	}
	codeGrants := rec.count("authorization_code")
	time.Sleep(time.Until(old.Expiry) + 1500*time.Millisecond)
	if value, _ := executeCode(t, ctx, cs, listReports); !containsID(t, value, reportID) {
		t.Fatalf("after refresh getCoachingReports returned %s", value)
	}
	if n := rec.count("refresh_token"); n < 1 {
		t.Errorf("refresh_token grants = %d, want at least 1", n)
	}
	if n := rec.count("authorization_code"); n != codeGrants {
		t.Errorf("authorization_code grants = %d after expiry, want %d (a refresh, not a new sign-in)", n, codeGrants)
	}

	// nginx spread the sign-in and the MCP calls over both replicas: a
	// sign-in's pages and posts alternate between them, so the pending
	// request, the session and the code crossed replicas.
	signIn := rs.proxy.upstreams(t, "GET", "/authorize")
	for addr, n := range rs.proxy.upstreams(t, "POST", "/authorize/") {
		signIn[addr] += n
	}
	if len(signIn) != 2 {
		t.Errorf("the sign-in reached %v through the proxy, want both replicas %v", signIn, rs.addrs)
	}
	if got := rs.proxy.upstreams(t, "POST", "/mcp"); len(got) != 2 {
		t.Errorf("MCP calls reached %v through the proxy, want both replicas %v", got, rs.addrs)
	}

	// Replica by replica. A grant obtained through the proxy...
	d := discover(t, front)
	const redirect = "http://127.0.0.1:53690/callback"
	clientID := register(t, d, "BrakingLab e2e replicas", redirect)
	ar := newAuthRequest(d, clientID, redirect)
	res, err := signInAndDecide(ctx, browserClient(), front.Base, ar.URL, "demo", front.Users["demo"], "Allow")
	if err != nil {
		t.Fatal(err)
	}
	tokenURL := func(i int) string { return "http://" + rs.addrs[i] + "/token" }
	first := postToken(t, tokenURL(0), url.Values{
		"grant_type": {"authorization_code"}, "code": {res.Redirect.Query().Get("code")}, "redirect_uri": {redirect},
		"client_id": {clientID}, "code_verifier": {ar.Verifier}, "resource": {d.Resource},
	})
	if first.Status != http.StatusOK || first.RefreshToken == "" {
		t.Fatalf("code exchange on replica A: %+v", first)
	}
	// ...minted by A, works on B,
	if code := postWithToken(t, "http://"+rs.addrs[1]+"/mcp", first.AccessToken); code != http.StatusOK {
		t.Errorf("token minted by replica A, used on replica B: status %d, want 200", code)
	}
	// rotated on A, then reused on B: B refuses it and revokes the grant,
	rotated := postToken(t, tokenURL(0), url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID}, "refresh_token": {first.RefreshToken}})
	if rotated.Status != http.StatusOK {
		t.Fatalf("refresh on replica A: %+v", rotated)
	}
	if reuse := postToken(t, tokenURL(1), url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID}, "refresh_token": {first.RefreshToken}}); reuse.Error != "invalid_grant" {
		t.Fatalf("rotated refresh token reused on replica B: %+v, want invalid_grant", reuse)
	}
	// so the token A issued by rotation no longer works on A either.
	if after := postToken(t, tokenURL(0), url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID}, "refresh_token": {rotated.RefreshToken}}); after.Error != "invalid_grant" {
		t.Fatalf("refresh token of a revoked grant on replica A: %+v, want invalid_grant", after)
	}
}
