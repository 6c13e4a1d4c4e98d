package sessions

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/internal/httpmw"
)

// router serves a Router behind the JSON-RPC envelope it reads; the
// X-Owner header names whose a request is, X-Principal its principal.
func router(t *testing.T, mode Mode, max int) (*Router, *httptest.Server) {
	t.Helper()
	rt := New(Config{
		Server:          mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil),
		Mode:            mode,
		Prefix:          "p.",
		MaxPerPrincipal: max,
		Extensions:      []string{"example/ui"},
		Owner:           func(r *http.Request) string { return r.Header.Get("X-Owner") },
		Principal:       func(r *http.Request) string { return r.Header.Get("X-Principal") },
	})
	ts := httptest.NewServer(httpmw.JSONRPC(httpmw.DefaultMaxBatch)(rt))
	t.Cleanup(func() { rt.Close(); ts.Close() })
	return rt, ts
}

func post(t *testing.T, ts *httptest.Server, owner, session, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-Owner", owner)
	req.Header.Set("X-Principal", strings.SplitN(owner, "/", 2)[0])
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Mcp-Session-Id"), string(b)
}

func initialize(version, capabilities string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":` + capabilities + `,"clientInfo":{"name":"c","version":"1"}}}`
}

const listTools = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

// Sessions open for the clients that need one, carry the prefix, serve
// only their owner, and are capped per principal.
func TestRouter(t *testing.T) {
	rt, ts := router(t, WhenNeeded, 1)
	for _, tt := range []struct {
		name, body string
		session    bool
	}{
		{"elicitation", initialize("2025-11-25", `{"elicitation":{}}`), true},
		{"no elicitation", initialize("2025-11-25", `{}`), false},
		{"2026-07-28", initialize("2026-07-28", `{"elicitation":{}}`), false},
	} {
		code, id, body := post(t, ts, "carol/"+tt.name, "", tt.body)
		if code != http.StatusOK || (id != "") != tt.session || (tt.session && !strings.HasPrefix(id, "p.")) {
			t.Errorf("%s: %d, session %q, want one: %v; %s", tt.name, code, id, tt.session, body)
		}
	}
	_, first, _ := post(t, ts, "alice/app", "", initialize("2025-11-25", `{"extensions":{"example/ui":{}}}`))
	if first == "" {
		t.Fatal("a client declaring a listed extension got no session")
	}
	if code, _, body := post(t, ts, "alice/app", first, listTools); code != http.StatusOK || !strings.Contains(body, `"tools"`) {
		t.Fatalf("the owner's request: %d %s", code, body)
	}
	for _, other := range []struct{ owner, id string }{
		{"alice/another client", first}, // same principal, another owner
		{"alice/app", "p.unknown"},
		{"alice/app", "q." + strings.TrimPrefix(first, "p.")},
		{"alice/app", strings.TrimPrefix(first, "p.")},
	} {
		if code, _, _ := post(t, ts, other.owner, other.id, listTools); code != http.StatusNotFound {
			t.Errorf("%s naming %s: %d, want 404", other.owner, other.id, code)
		}
	}
	// alice's second session closes her first: the cap is 1.
	_, second, _ := post(t, ts, "alice/app", "", initialize("2025-11-25", `{"elicitation":{}}`))
	for deadline := time.Now().Add(10 * time.Second); rt.Len() != 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions, want carol's and alice's second", rt.Len())
		}
	}
	if code, _, _ := post(t, ts, "alice/app", first, listTools); code != http.StatusNotFound {
		t.Errorf("the evicted session: %d", code)
	}
	if code, _, _ := post(t, ts, "alice/app", second, listTools); code != http.StatusOK {
		t.Errorf("the new session: %d", code)
	}
}

// Never opens no session, and Always one for every client before
// 2026-07-28; a request says which endpoint served it.
func TestModes(t *testing.T) {
	for _, tt := range []struct {
		mode    Mode
		session bool
		reason  string
	}{
		{Never, false, "configured to open no session"},
		{Always, true, "did not send back the Mcp-Session-Id"},
	} {
		rt, ts := router(t, tt.mode, 16)
		if _, id, _ := post(t, ts, "a", "", initialize("2025-06-18", `{}`)); (id != "") != tt.session {
			t.Errorf("mode %d: session %q, want one: %v", tt.mode, id, tt.session)
		}
		var reason string
		rt.stateless = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reason = Reason(r.Context(), nil) })
		post(t, ts, "a", "", listTools)
		if !strings.Contains(reason, tt.reason) {
			t.Errorf("mode %d: reason %q, want %q", tt.mode, reason, tt.reason)
		}
	}
	if r := Reason(context.Background(), &mcp.InitializeParams{ProtocolVersion: "2025-03-26"}); !strings.Contains(r, "revision 2025-03-26") || !strings.Contains(r, "stateless handler") {
		t.Errorf("outside a Router: %q", r)
	}
	if ModeFor(true, false) != Always || ModeFor(false, true) != Never || ModeFor(false, false) != WhenNeeded {
		t.Error("ModeFor")
	}
}

func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		stateful, stateless bool
		prefix, want        string
	}{
		{false, false, "r1.a_b-C", ""},
		{true, true, "", "both set"},
		{false, false, "r/1", "want at most 32 letters"},
		{false, false, strings.Repeat("a", 33), "want at most 32 letters"},
		{false, true, "r1", "opens no session"},
	} {
		err := Check(tt.stateful, tt.stateless, tt.prefix)
		if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%v, %v, %q) = %v, want %q", tt.stateful, tt.stateless, tt.prefix, err, tt.want)
		}
	}
}
