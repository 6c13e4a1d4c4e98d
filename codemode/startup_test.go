package codemode_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
	"github.com/brakinglab/codemode-go/sandbox"
)

// TestStartupRefusals: settings that would only fail when traffic arrives
// are refused by New with a message that says what to do.
func TestStartupRefusals(t *testing.T) {
	cat := newTestCatalog(t).Catalog
	dev := &catalog.Principal{Subject: "dev"}
	verifier := func(issuer, resource string) bearer.Verifier {
		v, err := bearer.NewIntrospectionVerifier(issuer, resource, &bearer.IntrospectionOptions{ClientID: "rs", ClientSecret: "secret"})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	auth := func(issuer, audience, resource string, servers ...string) *codemode.Auth {
		return &codemode.Auth{Verifier: verifier(issuer, audience), Resource: resource, AuthorizationServers: servers}
	}
	for _, tt := range []struct {
		name string
		opts codemode.Options
		want []string
	}{
		{"neither Auth nor Principal", codemode.Options{}, []string{"Options.Auth", "Options.Principal"}},
		{"both Auth and Principal", codemode.Options{Principal: dev,
			Auth: auth("https://auth.example", "https://api.example/mcp", "https://api.example/mcp", "https://auth.example")},
			[]string{"both set"}},
		{"remote opt-out without Principal", codemode.Options{InsecureRemotePrincipal: true,
			Auth: auth("https://auth.example", "https://api.example/mcp", "https://api.example/mcp", "https://auth.example")},
			[]string{"InsecureRemotePrincipal is set without Options.Principal"}},
		{"tunnel to a Principal server", codemode.Options{Principal: dev, HTTP: codemode.HTTPOptions{DisableLocalhostProtection: true}},
			[]string{"configure Auth", "InsecureRemotePrincipal"}},
		{"verifier audience is another resource", codemode.Options{
			Auth: auth("https://auth.example", "https://other.example/mcp", "https://api.example/mcp", "https://auth.example")},
			[]string{`Auth.Resource is "https://api.example/mcp" but the verifier requires the audience "https://other.example/mcp"`}},
		{"resource trailing slash", codemode.Options{
			Auth: auth("https://auth.example", "https://api.example/mcp/", "https://api.example/mcp", "https://auth.example")},
			[]string{"differ only by a trailing slash"}},
		{"issuer not advertised", codemode.Options{
			Auth: auth("https://auth.example", "https://api.example/mcp", "https://api.example/mcp", "https://login.example")},
			[]string{`do not include the verifier's issuer "https://auth.example"`}},
		{"issuer trailing slash", codemode.Options{
			Auth: auth("https://auth.example/", "https://api.example/mcp", "https://api.example/mcp", "https://auth.example")},
			[]string{"differ only by a trailing slash", "iss claim"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.Sandbox.Mode = sandbox.ModeInProcess
			s, err := codemode.New(cat, &o)
			if err == nil {
				s.Close()
				t.Fatal("New succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestPrincipalIsLoopbackOnly: in development mode a request from another
// machine is refused with 403 and a body that says why, unless the loudly
// named opt-out is set.
func TestPrincipalIsLoopbackOnly(t *testing.T) {
	cat := newTestCatalog(t)
	p := principal("dev", allScopes...)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":"return (await brakinglab.getSessions({})).length"}}}`
	post := func(h http.Handler, remote string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(call))
		r.RemoteAddr = remote
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	dev := newServer(t, cat, &codemode.Options{Principal: &p, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}})
	if w := post(dev.Handler(), "192.0.2.2:40000"); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "only accepts requests from loopback") {
		t.Fatalf("remote peer: %d %s", w.Code, w.Body)
	}
	if cat.lastUser.Load() != nil {
		t.Fatal("a remote request reached the catalog")
	}
	for _, remote := range []string{"127.0.0.1:40000", "[::1]:40000"} {
		if w := post(dev.Handler(), remote); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"result":5`) {
			t.Fatalf("loopback peer %s: %d %s", remote, w.Code, w.Body)
		}
	}
	open := newServer(t, cat, &codemode.Options{Principal: &p, InsecureRemotePrincipal: true, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}})
	if w := post(open.Handler(), "192.0.2.2:40000"); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"result":5`) {
		t.Fatalf("remote peer with InsecureRemotePrincipal: %d %s", w.Code, w.Body)
	}
}

// TestWorkerInitTrap: a binary whose package initialiser needs the host's
// environment cannot run as a worker. New starts one worker and fails,
// quoting the worker's stderr and naming both remedies; with a separate
// worker binary in WorkerPath it starts.
func TestWorkerInitTrap(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the trap binary: %v", err)
	}
	dir := t.TempDir()
	build := func(pkg, out string) string {
		path := filepath.Join(dir, out)
		cmd := exec.Command(goBin, "build", "-o", path, pkg)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, b)
		}
		return path
	}
	trap := build("./testdata/inittrap", "inittrap")
	worker := build("./testdata/inittrap/worker", "inittrap-worker")

	run := func(workerPath string) (string, error) {
		cmd := exec.Command(trap)
		cmd.Env = append(os.Environ(), "INITTRAP_DATABASE_URL=postgres://db.example/inventory", "INITTRAP_WORKER="+workerPath)
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	out, err := run("")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("trap binary: %v\n%s", err, out)
	}
	for _, want := range []string{"config: INITTRAP_DATABASE_URL is not set", "into main", "Options.Sandbox.WorkerPath"} {
		if !strings.Contains(out, want) {
			t.Errorf("New's error does not mention %q:\n%s", want, out)
		}
	}
	if out, err := run(worker); err != nil || strings.TrimSpace(out) != "started" {
		t.Fatalf("with WorkerPath: %v\n%s", err, out)
	}
}

// TestErrorCodeVisible: an uncaught host error's code reaches the model in
// the text and in structuredContent, not only inside the script.
func TestErrorCodeVisible(t *testing.T) {
	ts := startServer(t, nil)
	cs := ts.connect(t, ts.token("alice", allScopes...), nil)
	res := run(t, cs, `return await brakinglab.getBrakingZones({sessionId: "missing"})`)
	if !res.IsError || !strings.Contains(text(res), "\n  code: not_found") {
		t.Fatalf("text: %s", text(res))
	}
	var st struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &st); err != nil || st.Error.Code != "not_found" {
		t.Fatalf("structuredContent: %s", b)
	}
}

// TestAuditSettings: a nil AuditFunc is refused at New (it would panic in
// every execution); NoAudit is the documented off switch.
func TestAuditSettings(t *testing.T) {
	cat := newTestCatalog(t).Catalog
	dev := &catalog.Principal{Subject: "dev"}
	var nilFunc codemode.AuditFunc
	s, err := codemode.New(cat, &codemode.Options{Principal: dev, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}, Audit: codemode.AuditOptions{Sink: nilFunc}})
	if err == nil {
		s.Close()
		t.Fatal("New accepted a nil AuditFunc")
	}
	if !strings.Contains(err.Error(), "codemode.NoAudit") {
		t.Fatalf("error %q does not name the off switch", err)
	}
	srv := newServer(t, cat, &codemode.Options{Principal: dev, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}, Audit: codemode.AuditOptions{Sink: codemode.NoAudit}})
	st, ct := mcp.NewInMemoryTransports()
	go srv.ServeTransport(t.Context(), principal("alice", allScopes...), st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res := run(t, cs, `return (await brakinglab.getSessions({})).length`); res.IsError {
		t.Fatal(text(res))
	}
}

// TestAuditFieldNames: an AuditEvent marshalled as JSON and the same event
// written by the slog sink use the same field names.
func TestAuditFieldNames(t *testing.T) {
	ev := codemode.AuditEvent{
		Kind: codemode.FunctionCalled, Time: time.Now(), TraceID: "t", Subject: "s", ClientID: "c", Tool: codemode.ToolName,
		CodeSHA256: "ab", CodeBytes: 3, Function: "f", Tier: "READ-ONLY", Args: map[string]int{"a": 1},
		Duration: 1500 * time.Microsecond, ResultBytes: 4, Calls: 1, ErrorKind: "not_found",
	}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON map[string]any
	if err := json.Unmarshal(b, &fromJSON); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	codemode.NewSlogAudit(slog.New(slog.NewJSONHandler(&buf, nil))).Audit(t.Context(), ev)
	var fromSlog map[string]any
	if err := json.Unmarshal(buf.Bytes(), &fromSlog); err != nil {
		t.Fatal(err)
	}
	delete(fromSlog, "level")
	delete(fromSlog, "msg")
	delete(fromJSON, "calls") // the slog sink writes calls on execution events only
	if got, want := slices.Sorted(maps.Keys(fromSlog)), slices.Sorted(maps.Keys(fromJSON)); !slices.Equal(got, want) {
		t.Fatalf("slog fields %v\n JSON fields %v", got, want)
	}
	if fromJSON["durationMs"] != 1.5 || fromSlog["durationMs"] != 1.5 {
		t.Fatalf("durationMs: JSON %v, slog %v", fromJSON["durationMs"], fromSlog["durationMs"])
	}
}
