package authserver

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// wrongPasswords opens one authorization request from browser c and
// submits n wrong passwords for user on it; it returns the last page.
func (e *env) wrongPasswords(c *http.Client, clientID, cb, user string, n int) page {
	e.t.Helper()
	p := get(e.t, c, e.URL()+"/authorize?"+e.authParams(clientID, cb, newPKCE()).Encode())
	action, fields := formOf(e.t, p)
	for range n {
		fields.Set("username", user)
		fields.Set("password", "guess-"+time.Now().String())
		p = postForm(e.t, c, e.URL()+action, fields)
	}
	return p
}

// browserFrom is a browser whose connections come from the loopback
// address ip (any of 127.0.0.0/8), so that tests can act from several
// sources.
func browserFrom(ip string) *http.Client {
	c := browser()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	c.Transport = &http.Transport{DialContext: d.DialContext}
	return c
}

// trySignIn opens a request from c and submits user's password once,
// returning the answer (303 to consent on success).
func (e *env) trySignIn(c *http.Client, clientID, cb, user, password string) page {
	e.t.Helper()
	p := get(e.t, c, e.URL()+"/authorize?"+e.authParams(clientID, cb, newPKCE()).Encode())
	action, fields := formOf(e.t, p)
	fields.Set("username", user)
	fields.Set("password", password)
	return postForm(e.t, c, e.URL()+action, fields)
}

// TestPasswordGuessesDoNotLockOutTheOwner: an anonymous party guessing
// demo's password from its address is stopped after
// maxSourceAccountFailures guesses, however many requests it opens, while
// demo signing in from another address is not locked out (it was, for 15
// minutes, after ten anonymous guesses).
func TestPasswordGuessesDoNotLockOutTheOwner(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "https://app.example.com/callback"
	clientID := e.mustRegister("App", cb)
	attacker := browserFrom("127.0.0.2")
	for range maxSourceAccountFailures / maxSignInFailures {
		e.wrongPasswords(attacker, clientID, cb, "demo", maxSignInFailures)
	}
	// The attacker's source is refused, even with the right password...
	p := e.trySignIn(attacker, clientID, cb, "DEMO ", "demo-pass")
	if p.Status != http.StatusTooManyRequests || !strings.Contains(p.Body, "Too many") {
		t.Fatalf("attacker's sign-in after %d wrong passwords: status %d, want 429: %.400s", maxSourceAccountFailures, p.Status, p.Body)
	}
	// ...while the owner signs in from their own address...
	e.signIn(browserFrom("127.0.0.1"), e.authParams(clientID, cb, newPKCE()), "demo", "demo-pass")
	// ...and the attacker may try again once the window has passed.
	e.clock.Advance(failureWindow + time.Second)
	if p := e.trySignIn(attacker, clientID, cb, "demo", "demo-pass"); p.Status != http.StatusSeeOther {
		t.Fatalf("sign-in after the window: status %d: %.400s", p.Status, p.Body)
	}
}

// TestPasswordGuessesLimitedPerSource: spreading guesses over many
// usernames does not escape the limit: after maxSourceFailures wrong
// passwords a source may not sign in to any account, others still may.
func TestPasswordGuessesLimitedPerSource(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "https://app.example.com/callback"
	clientID := e.mustRegister("App", cb)
	attacker := browserFrom("127.0.0.3")
	for i := range maxSourceFailures / maxSignInFailures {
		e.wrongPasswords(attacker, clientID, cb, "user"+strconv.Itoa(i), maxSignInFailures)
	}
	if p := e.trySignIn(attacker, clientID, cb, "alice", "alice-pass"); p.Status != http.StatusTooManyRequests {
		t.Fatalf("sign-in after %d wrong passwords at other accounts: status %d, want 429", maxSourceFailures, p.Status)
	}
	e.signIn(browserFrom("127.0.0.4"), e.authParams(clientID, cb, newPKCE()), "alice", "alice-pass")
}

// TestPendingFloodDoesNotEvictOthers: a user opens the sign-in page, then
// an anonymous flood of /authorize from many addresses overfills the
// pending table before the user submits; the user's request survives, and
// no source keeps more than maxPendingPerSource.
func TestPendingFloodDoesNotEvictOthers(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "https://app.example.com/callback"
	clientID := e.mustRegister("App", cb)
	user := browserFrom("127.0.0.1")
	page := get(t, user, e.URL()+"/authorize?"+e.authParams(clientID, cb, newPKCE()).Encode())
	action, fields := formOf(t, page)

	q := "/authorize?" + e.authParams(clientID, cb, newPKCE()).Encode()
	sources := maxStored/maxPendingPerSource + 4 // enough to fill the table
	for i := range sources * (maxPendingPerSource + 6) {
		r := httptest.NewRequest(http.MethodGet, q, nil)
		r.RemoteAddr = netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, byte(i % sources >> 8), byte(i % sources)}), 4000).String()
		w := httptest.NewRecorder()
		e.srv.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("flood request %d: %d", i, w.Code)
		}
	}
	if n := e.count(`SELECT count(*) FROM authserver_pending`); n > maxStored {
		t.Fatalf("%d pending requests kept, cap %d", n, maxStored)
	}
	if c := e.count(`SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM authserver_pending GROUP BY source) AS per_source`); c > maxPendingPerSource {
		t.Fatalf("a source keeps %d pending requests, cap %d", c, maxPendingPerSource)
	}

	fields.Set("username", "demo")
	fields.Set("password", "demo-pass")
	if p := postForm(t, user, e.URL()+action, fields); p.Status != http.StatusSeeOther {
		t.Fatalf("the user's sign-in after the flood: status %d: %.400s", p.Status, p.Body)
	}

	// Once the flood has expired, a new request clears it.
	e.clock.Advance(pendingTTL + time.Second)
	r := httptest.NewRequest(http.MethodGet, q, nil)
	r.RemoteAddr = "198.51.100.7:4000"
	e.srv.ServeHTTP(httptest.NewRecorder(), r)
	if n := e.count(`SELECT count(*) FROM authserver_pending`); n != 1 {
		t.Fatalf("after expiry: %d pending, want 1", n)
	}
}

// TestPendingFloodDoesNotBlockSignIn: anyone can open authorization
// requests (registration is open); filling the pending table must not
// refuse every later sign-in for the requests' whole lifetime.
func TestPendingFloodDoesNotBlockSignIn(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "https://app.example.com/callback"
	clientID := e.mustRegister("App", cb)
	q := "/authorize?" + e.authParams(clientID, cb, newPKCE()).Encode()
	for i := range maxStored + 10 {
		w := httptest.NewRecorder()
		e.srv.ServeHTTP(w, httptest.NewRequest(http.MethodGet, q, nil))
		if w.Code != http.StatusOK && i < maxStored {
			t.Fatalf("request %d: %d", i, w.Code)
		}
	}
	consent := e.signIn(browser(), e.authParams(clientID, cb, newPKCE()), "demo", "demo-pass")
	if !strings.Contains(consent.Body, "App") {
		t.Fatalf("consent page: %s", consent.Body)
	}
	if n := e.count(`SELECT count(*) FROM authserver_pending`); n > maxStored {
		t.Fatalf("%d pending requests kept, cap %d", n, maxStored)
	}
}

func (e *env) count(q string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.db.QueryRow(q, args...).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// TestRefreshRotationsBounded: every rotation keeps the old token's hash so
// reuse is recognised; one grant refreshed in a loop must not grow the
// table without bound. Past the cap the grant ends (authorize again), and
// reuse detection is intact up to it.
func TestRefreshRotationsBounded(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.maxRotations = 5
	clientID, tok := e.login()
	first, rt := tok.RefreshToken, tok.RefreshToken
	for i := 1; ; i++ {
		r := e.refresh(clientID, rt)
		if r.Status != http.StatusOK {
			wantOAuthError(t, r, http.StatusBadRequest, "invalid_grant")
			if i != 5 || !strings.Contains(r.Description, "authorize again") {
				t.Fatalf("refresh %d refused: %s", i, r.Description)
			}
			break
		}
		if i > 20 {
			t.Fatalf("%d rotations of one grant accepted, cap 5", i)
		}
		rt = r.RefreshToken
	}
	if n := e.count(`SELECT count(*) FROM authserver_refresh_tokens`); n > 5 {
		t.Fatalf("%d refresh token rows kept, cap 5", n)
	}
	// The first token is still recognised as reused, not unknown.
	r := e.refresh(clientID, first)
	if !strings.Contains(r.Description, "already used") && !strings.Contains(r.Description, "revoked") {
		t.Fatalf("reuse of the first token: %s", r.Description)
	}
}

// TestGrantsPerUserBounded: each authorization starts a refresh-token
// family; a user (or a script signed in as one) authorizing in a loop must
// not grow the table without bound. The oldest grants go first.
func TestGrantsPerUserBounded(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.maxFamilies = 3
	var toks []tokenReply
	var clients []string
	for range 5 {
		c, tok := e.login()
		clients, toks = append(clients, c), append(toks, tok)
	}
	if n := e.count(`SELECT count(*) FROM authserver_refresh_families WHERE subject = ?`, "user-demo"); n != 3 {
		t.Fatalf("%d grants kept for demo, want 3", n)
	}
	wantOAuthError(t, e.refresh(clients[0], toks[0].RefreshToken), http.StatusBadRequest, "invalid_grant")
	if r := e.refresh(clients[4], toks[4].RefreshToken); r.Status != http.StatusOK {
		t.Fatalf("newest grant: %+v", r)
	}
}

// TestConsentShowsWhoVouchesForTheName: any client can call itself
// "Claude". The consent page must show what is verified: for a client ID
// metadata document the host that publishes it, for a registered client a
// warning that the name is self-chosen.
func TestConsentShowsWhoVouchesForTheName(t *testing.T) {
	host := newCIMDHost(t)
	cimdID := host.ts.URL + "/client.json"
	host.docs["/client.json"] = map[string]any{"client_id": cimdID, "client_name": "Claude", "redirect_uris": []string{"http://127.0.0.1:4000/cb"}}
	e := newEnv(t, &Options{HTTPClient: host.ts.Client()})
	dcrID := e.mustRegister("Claude", "http://127.0.0.1:4000/cb")

	cimdHost := strings.TrimPrefix(host.ts.URL, "https://")
	consent := e.signIn(browser(), e.authParams(cimdID, "http://127.0.0.1:4000/cb", newPKCE()), "demo", "demo-pass")
	if !strings.Contains(consent.Body, `id="client-host">`+cimdHost+`<`) {
		t.Fatalf("CIMD consent page does not name the publishing host %s: %s", cimdHost, consent.Body)
	}
	consent = e.signIn(browser(), e.authParams(dcrID, "http://127.0.0.1:4000/cb", newPKCE()), "demo", "demo-pass")
	if !strings.Contains(consent.Body, `id="client-unverified"`) || strings.Contains(consent.Body, `id="client-host"`) {
		t.Fatalf("registered client's consent page does not say the name is unverified: %s", consent.Body)
	}
}

// TestPublicAddrRefusesIPv4Compatible: ::a.b.c.d embeds an IPv4 address
// the way ::ffff:a.b.c.d does, and netip calls it global unicast.
func TestPublicAddrRefusesIPv4Compatible(t *testing.T) {
	for _, a := range []string{"::7f00:1", "::a9fe:a9fe", "::a00:1"} {
		if PublicAddr(netip.MustParseAddr(a)) {
			t.Errorf("PublicAddr(%s) = true", a)
		}
	}
}

// blockingUsers lets the test see and release each password check.
type blockingUsers struct {
	entered  chan struct{}
	release  chan struct{}
	inFlight atomic.Int32
	max      atomic.Int32
}

func (b *blockingUsers) Authenticate(ctx context.Context, username, password string) (string, string, error) {
	n := b.inFlight.Add(1)
	defer b.inFlight.Add(-1)
	for {
		m := b.max.Load()
		if n <= m || b.max.CompareAndSwap(m, n) {
			break
		}
	}
	b.entered <- struct{}{}
	<-b.release
	return "", "", ErrBadCredentials
}

// TestPasswordChecksBounded: each sign-in costs a bcrypt comparison (tens
// of milliseconds of CPU), and anyone can submit sign-ins with made-up
// usernames, which the per-account limit does not slow. Password checks
// run a bounded number at a time, so a flood cannot take every core from
// the rest of the service.
func TestPasswordChecksBounded(t *testing.T) {
	users := &blockingUsers{entered: make(chan struct{}), release: make(chan struct{})}
	ts := httptest.NewServer(nil)
	t.Cleanup(ts.Close)
	srv, err := New(openDB(t, filepath.Join(t.TempDir(), "a.db")), users, &Options{Issuer: ts.URL, Resource: ts.URL + "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	srv.checks = make(chan struct{}, 1)
	var arrived atomic.Int32
	ts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/signin") {
			arrived.Add(1)
		}
		srv.ServeHTTP(w, r)
	})
	e := &env{t: t, ts: ts, srv: srv}
	const cb = "https://app.example.com/callback"
	clientID := e.mustRegister("App", cb)

	const n = 4
	done := make(chan struct{}, n)
	for i := range n {
		go func() {
			defer func() { done <- struct{}{} }()
			c := browser()
			p := get(t, c, ts.URL+"/authorize?"+e.authParams(clientID, cb, newPKCE()).Encode())
			action, fields := formOf(t, p)
			fields.Set("username", "user"+strconv.Itoa(i))
			fields.Set("password", "pw")
			postForm(t, c, ts.URL+action, fields)
		}()
	}
	<-users.entered
	// With every sign-in at the server, give the others a moment to get
	// past the bound if it does not hold (this only waits; it never
	// decides the result on a slow machine).
	for arrived.Load() < n {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	users.release <- struct{}{}
	for range n - 1 {
		<-users.entered
		users.release <- struct{}{}
	}
	for range n {
		<-done
	}
	if m := users.max.Load(); m != 1 {
		t.Fatalf("%d password checks ran at once, bound 1", m)
	}
}

// TestRegistrationFloodCannotEvictFreshClients: registration is open and
// the client table is capped, never-used clients pruned oldest first, so a
// burst of registrations pruned the client a user had just registered and
// was signing in with. Registrations are now rate-limited: flushing the
// table takes longer than a sign-in.
func TestRegistrationFloodCannotEvictFreshClients(t *testing.T) {
	e := newEnv(t, &Options{MaxClients: 50})
	const cb = "https://app.example.com/callback"
	fresh := e.mustRegister("Fresh", cb)
	refused := 0
	for range 100 {
		resp, body := e.register(map[string]any{"redirect_uris": []string{cb}, "client_name": "flood"})
		switch resp.StatusCode {
		case http.StatusCreated:
		case http.StatusTooManyRequests:
			refused++
			if resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "temporarily_unavailable") {
				t.Fatalf("429 without Retry-After or error code: %s", body)
			}
		default:
			t.Fatalf("registration: %d %s", resp.StatusCode, body)
		}
	}
	if refused == 0 {
		t.Fatal("100 registrations in a burst all accepted")
	}
	if _, err := e.srv.lookupClient(context.Background(), fresh); err != nil {
		t.Fatalf("the fresh client was pruned by the flood: %v", err)
	}
	// The budget refills with time.
	e.clock.Advance(time.Minute)
	e.mustRegister("Later", cb)
}

// TestSessionsAndCodesPerUserBounded: sessions and authorization codes
// once lived in tables that refused new entries when full. Demo passwords
// are public, so anyone could sign in 10,000 times, or consent 10,000
// times, and lock every user out for hours. Each user now keeps a bounded
// number of each, dropping their own oldest; the newest still work.
func TestSessionsAndCodesPerUserBounded(t *testing.T) {
	e := newEnv(t, nil)
	const cb = "http://127.0.0.1:9999/callback"
	clientID := e.mustRegister("App", cb)
	var p pkce
	var code string
	for range maxPerSubject + 10 {
		p = newPKCE()
		code = e.authorize(clientID, cb, p)
	}
	sessions := e.count(`SELECT count(*) FROM authserver_sessions WHERE subject = ?`, "user-demo")
	codes := e.count(`SELECT count(*) FROM authserver_codes WHERE subject = ?`, "user-demo")
	if sessions > maxPerSubject || codes > maxPerSubject {
		t.Fatalf("demo holds %d sessions and %d codes, cap %d each", sessions, codes, maxPerSubject)
	}
	if tok := e.exchange(clientID, code, cb, p); tok.Status != http.StatusOK {
		t.Fatalf("newest code: %+v", tok)
	}
}

// TestClientAddressBehindProxy: behind a reverse proxy every browser has
// the proxy's peer address; with Options.ClientAddress reading the address
// the proxy forwards, an attacker's guesses still do not lock out the
// owner, and a forwarded address the proxy did not vouch for is not used
// without it.
func TestClientAddressBehindProxy(t *testing.T) {
	forwarded := func(r *http.Request) string { return r.Header.Get("X-Test-Client") }
	e := newEnv(t, &Options{ClientAddress: forwarded})
	const cb = "https://app.example.com/callback"
	clientID := e.mustRegister("App", cb)
	from := func(ip string) *http.Client {
		c := browser()
		c.Transport = headerTransport{"X-Test-Client", ip}
		return c
	}
	attacker := from("203.0.113.9")
	for range maxSourceAccountFailures / maxSignInFailures {
		e.wrongPasswords(attacker, clientID, cb, "demo", maxSignInFailures)
	}
	if p := e.trySignIn(attacker, clientID, cb, "demo", "demo-pass"); p.Status != http.StatusTooManyRequests {
		t.Fatalf("attacker behind the proxy: status %d, want 429", p.Status)
	}
	e.signIn(from("2001:db8::1"), e.authParams(clientID, cb, newPKCE()), "demo", "demo-pass")

	// Without ClientAddress the header is ignored: all share the peer.
	e2 := newEnv(t, nil)
	clientID = e2.mustRegister("App", cb)
	for range maxSourceAccountFailures / maxSignInFailures {
		e2.wrongPasswords(from("203.0.113.9"), clientID, cb, "demo", maxSignInFailures)
	}
	if p := e2.trySignIn(from("198.51.100.1"), clientID, cb, "demo", "demo-pass"); p.Status != http.StatusTooManyRequests {
		t.Fatalf("a forwarded header changed the source without ClientAddress: status %d", p.Status)
	}
}

// headerTransport sets one header on every request.
type headerTransport struct{ name, value string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}
