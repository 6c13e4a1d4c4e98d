package authserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb"
	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb/sqldbtest"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	_ "modernc.org/sqlite"
)

// testUsers is a UserAuthenticator with fixed accounts.
type testUsers map[string]string // username → password

func (u testUsers) Authenticate(_ context.Context, username, password string) (string, string, error) {
	if pw, ok := u[username]; ok && pw == password {
		return "user-" + username, strings.ToUpper(username[:1]) + username[1:], nil
	}
	return "", "", ErrBadCredentials
}

var demoUsers = testUsers{"demo": "demo-pass", "alice": "alice-pass"}

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestOnPostgreSQL runs every other test of the package again with the
// server's database on PostgreSQL.
func TestOnPostgreSQL(t *testing.T) {
	sqldbtest.RunOnPostgres(t, sqldbtest.Server(t))
}

// pgDatabases maps the file paths tests name to the PostgreSQL databases
// standing in for them in the PostgreSQL pass, so reopening a path
// reopens its database.
var pgDatabases sync.Map

// openDB opens (and creates) the SQLite database file at path, or in the
// PostgreSQL pass the database standing in for it.
func openDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	dsn := path
	if sqldbtest.OnPostgres() {
		v, ok := pgDatabases.Load(path)
		if !ok {
			v = sqldbtest.DSN(t)
			pgDatabases.Store(path, v)
		}
		dsn = v.(string)
	}
	db, _, err := sqldb.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// env is a running authorization server on a loopback httptest server.
type env struct {
	t      testing.TB
	ts     *httptest.Server
	srv    *Server
	clock  *clock
	dbPath string
	db     *sql.DB
	// setHandler replaces what the test server serves.
	setHandler func(http.Handler)
}

func (e *env) URL() string      { return e.ts.URL }
func (e *env) Resource() string { return e.ts.URL + "/mcp" }

// newEnv starts a server on a fresh database file.
func newEnv(t testing.TB, opts *Options) *env {
	t.Helper()
	return newEnvOnDB(t, filepath.Join(t.TempDir(), "brakinglab.db"), opts)
}

// newEnvOnDB starts a server on the database file at path. Issuer and
// Resource are filled in from the test server's URL when empty.
func newEnvOnDB(t testing.TB, path string, opts *Options) *env {
	t.Helper()
	return newEnvWith(t, path, opts, nil)
}

// newEnvWith is newEnvOnDB with a hook that adds routes (e.g. an MCP
// endpoint) to the server's mux.
func newEnvWith(t testing.TB, path string, opts *Options, extra func(e *env, mux *http.ServeMux)) *env {
	t.Helper()
	e := &env{t: t, clock: &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}, dbPath: path}
	var handler http.Handler = http.NotFoundHandler()
	var mu sync.Mutex
	e.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		h := handler
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(e.ts.Close)
	e.setHandler = func(h http.Handler) {
		mu.Lock()
		handler = h
		mu.Unlock()
	}
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Issuer == "" {
		o.Issuer = e.ts.URL
	}
	if o.Resource == "" {
		o.Resource = e.ts.URL + "/mcp"
	}
	if o.Now == nil {
		o.Now = e.clock.Now
	}
	e.db = openDB(t, path)
	srv, err := New(e.db, demoUsers, &o)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	mux := http.NewServeMux()
	srv.Mount(mux)
	if extra != nil {
		extra(e, mux)
	}
	e.setHandler(mux)
	return e
}

// register performs dynamic client registration and returns the response.
func (e *env) register(meta any) (*http.Response, []byte) {
	e.t.Helper()
	b, _ := json.Marshal(meta)
	resp, err := http.Post(e.URL()+"/register", "application/json", strings.NewReader(string(b)))
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// mustRegister registers a client with one redirect URI and returns its client_id.
func (e *env) mustRegister(name, redirectURI string) string {
	e.t.Helper()
	resp, body := e.register(&oauthex.ClientRegistrationMetadata{
		RedirectURIs:            []string{redirectURI},
		ClientName:              name,
		TokenEndpointAuthMethod: "none",
		GrantTypes:              []string{"authorization_code", "refresh_token"},
	})
	if resp.StatusCode != http.StatusCreated {
		e.t.Fatalf("register: status %d: %s", resp.StatusCode, body)
	}
	var r oauthex.ClientRegistrationResponse
	if err := json.Unmarshal(body, &r); err != nil {
		e.t.Fatal(err)
	}
	return r.ClientID
}

// pkce is a verifier and its S256 challenge.
type pkce struct{ Verifier, Challenge string }

func newPKCE() pkce {
	v := strings.Repeat(strings.ToLower(rand.Text()), 2) // 52 chars, unreserved
	sum := sha256.Sum256([]byte(v))
	return pkce{v, base64.RawURLEncoding.EncodeToString(sum[:])}
}

// authParams are the usual authorization request parameters.
func (e *env) authParams(clientID, redirectURI string, p pkce) url.Values {
	return url.Values{
		"response_type":         {"code"},
		"client_id":             {clientID},
		"redirect_uri":          {redirectURI},
		"state":                 {"state-" + rand.Text()},
		"code_challenge":        {p.Challenge},
		"code_challenge_method": {"S256"},
		"resource":              {e.Resource()},
		"scope":                 {ScopeRead + " " + ScopeWrite},
	}
}

// browser is an HTTP client with a cookie jar that stops at every redirect.
func browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// page is a fetched response with its body read.
type page struct {
	Status   int
	Location string
	Header   http.Header
	Body     string
}

func do(t testing.TB, c *http.Client, req *http.Request) page {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return page{resp.StatusCode, resp.Header.Get("Location"), resp.Header, string(b)}
}

func get(t testing.TB, c *http.Client, u string) page {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return do(t, c, req)
}

func postForm(t testing.TB, c *http.Client, u string, v url.Values) page {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(t, c, req)
}

var (
	formActionRE = regexp.MustCompile(`<form method="post" action="([^"]*)">`)
	hiddenRE     = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
)

// formOf returns the action and hidden fields of the page's form.
func formOf(t testing.TB, p page) (string, url.Values) {
	t.Helper()
	m := formActionRE.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("no form on page (status %d): %s", p.Status, p.Body)
	}
	v := url.Values{}
	for _, h := range hiddenRE.FindAllStringSubmatch(p.Body, -1) {
		v.Set(html.UnescapeString(h[1]), html.UnescapeString(h[2]))
	}
	return html.UnescapeString(m[1]), v
}

// signIn fetches the authorization URL, submits the sign-in form and
// returns the consent page.
func (e *env) signIn(c *http.Client, params url.Values, user, password string) page {
	e.t.Helper()
	p := get(e.t, c, e.URL()+"/authorize?"+params.Encode())
	if p.Status != http.StatusOK || !strings.Contains(p.Body, `type="password"`) {
		e.t.Fatalf("expected the sign-in page, got %d: %s (Location %s)", p.Status, p.Body, p.Location)
	}
	action, fields := formOf(e.t, p)
	fields.Set("username", user)
	fields.Set("password", password)
	p = postForm(e.t, c, e.URL()+action, fields)
	if p.Status != http.StatusSeeOther {
		e.t.Fatalf("sign-in: status %d: %s", p.Status, p.Body)
	}
	p = get(e.t, c, e.URL()+p.Location)
	if p.Status != http.StatusOK || !strings.Contains(p.Body, `value="allow"`) {
		e.t.Fatalf("expected the consent page, got %d: %s", p.Status, p.Body)
	}
	return p
}

// decide presses Allow or Deny on a consent page and returns the redirect.
func (e *env) decide(c *http.Client, consent page, action string) *url.URL {
	e.t.Helper()
	to, fields := formOf(e.t, consent)
	fields.Set("action", action)
	p := postForm(e.t, c, e.URL()+to, fields)
	if p.Status != http.StatusSeeOther {
		e.t.Fatalf("consent: status %d: %s", p.Status, p.Body)
	}
	u, err := url.Parse(p.Location)
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

// authorize runs the browser part of the flow as demo and returns the code.
func (e *env) authorize(clientID, redirectURI string, p pkce) string {
	e.t.Helper()
	params := e.authParams(clientID, redirectURI, p)
	c := browser()
	loc := e.decide(c, e.signIn(c, params, "demo", "demo-pass"), "allow")
	q := loc.Query()
	if q.Get("state") != params.Get("state") || q.Get("iss") != e.srv.Issuer() || q.Get("code") == "" {
		e.t.Fatalf("bad redirect %s", loc)
	}
	return q.Get("code")
}

// tokenReply is a token endpoint response of either kind.
type tokenReply struct {
	Status       int
	Header       http.Header
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
}

func (e *env) token(v url.Values) tokenReply {
	e.t.Helper()
	resp, err := http.PostForm(e.URL()+"/token", v)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var r tokenReply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		e.t.Fatalf("token response is not JSON: %v", err)
	}
	r.Status, r.Header = resp.StatusCode, resp.Header
	return r
}

func (e *env) exchange(clientID, code, redirectURI string, p pkce) tokenReply {
	e.t.Helper()
	return e.token(url.Values{
		"grant_type": {"authorization_code"}, "client_id": {clientID}, "code": {code},
		"redirect_uri": {redirectURI}, "code_verifier": {p.Verifier}, "resource": {e.Resource()},
	})
}

func (e *env) refresh(clientID, rt string) tokenReply {
	e.t.Helper()
	return e.token(url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID}, "refresh_token": {rt}})
}

// login registers a client, authorizes as demo and exchanges the code.
func (e *env) login() (clientID string, tok tokenReply) {
	e.t.Helper()
	const cb = "http://127.0.0.1:9999/callback"
	clientID = e.mustRegister("Test Client", cb)
	p := newPKCE()
	tok = e.exchange(clientID, e.authorize(clientID, cb, p), cb, p)
	if tok.Status != http.StatusOK {
		e.t.Fatalf("exchange: %d %s: %s", tok.Status, tok.Error, tok.Description)
	}
	return clientID, tok
}

func wantOAuthError(t testing.TB, r tokenReply, status int, code string) {
	t.Helper()
	if r.Status != status || r.Error != code {
		t.Fatalf("got %d %q (%s), want %d %q", r.Status, r.Error, r.Description, status, code)
	}
	if r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("error response Cache-Control = %q, want no-store", r.Header.Get("Cache-Control"))
	}
}

func describe(v any) string { return fmt.Sprintf("%+v", v) }

func decodeSegment(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }
