package authserver

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// pendingRequest is a validated authorization request waiting for sign-in and consent.
type pendingRequest struct {
	client      *client
	redirectURI string
	state       string
	challenge   string
	resource    string
	scopes      []string
	expires     time.Time
	// browser is the browser-cookie value of the browser that opened the
	// request; only that browser may sign in and consent to it, so a
	// leaked request ID is of no use elsewhere.
	browser string
	// failures counts wrong passwords; at maxSignInFailures the request is dropped.
	failures int
	// source is the address that opened the request (see Server.sourceOf).
	source string
}

// maxSignInFailures bounds password guesses per authorization request.
const maxSignInFailures = 5

// Guesses are also counted across requests, since opening another request
// is free. The throttle follows Auth0's brute-force protection: wrong
// passwords are counted per account and source address, and after
// maxSourceAccountFailures within failureWindow that source may not sign
// in to that account until the window has passed, while the account's
// owner, signing in from anywhere else, is unaffected. Locking the account
// itself, as before, let anyone lock out its owner with ten guesses. Like
// Auth0's suspicious-IP throttling, a source is also blocked for every
// account after maxSourceFailures wrong passwords, so spreading guesses
// over many usernames gains nothing. A successful sign-in clears its
// source's count for the account. Sources are IPv4 addresses and IPv6 /64
// prefixes (one host usually holds a whole /64).
const (
	maxSourceAccountFailures = 10
	maxSourceFailures        = 100
	failureWindow            = 15 * time.Minute
)

// maxPendingPerSource bounds the pending requests of one source address.
// Past it the source's own oldest request goes, and when the whole table
// is full the oldest request of the source holding the most goes, so a
// flood from a few addresses only ever evicts its own requests.
const maxPendingPerSource = 64

// session is a signed-in browser.
type session struct {
	subject string
	name    string
	expires time.Time
}

// authCode is an issued authorization code and everything it is bound to.
type authCode struct {
	clientID    string
	redirectURI string
	challenge   string
	resource    string
	scopes      []string
	subject     string
	expires     time.Time
	// used is set by the first exchange; familyID names the refresh-token
	// family it produced, revoked if the code is presented again.
	used     bool
	familyID string
}

// maxStored bounds the stored pending requests, sessions and
// authorization codes (each). A variable so that tests fill the tables
// with a tenth of the rows (main_test.go).
var maxStored = 10000

const (
	pendingTTL = 10 * time.Minute
	// maxInMemory bounds the per-account failure counters kept in memory.
	maxInMemory = 10000
	// maxPerSubject bounds one user's sessions and codes.
	maxPerSubject     = 20
	sessionCookieName = "authserver_session"
	browserCookieName = "authserver_browser"
	maxFormBytes      = 16 << 10
	maxStateBytes     = 2048
)

// authorizeParams are the single-valued query parameters of /authorize.
var authorizeParams = []string{"client_id", "redirect_uri", "response_type", "state", "scope",
	"code_challenge", "code_challenge_method", "resource"}

func (s *Server) handleAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for _, k := range []string{"client_id", "redirect_uri"} {
		if len(q[k]) > 1 {
			s.errorPage(w, http.StatusBadRequest, "Invalid request", k+" appears more than once.")
			return
		}
	}
	c, err := s.lookupClient(r.Context(), q.Get("client_id"))
	if err != nil {
		if errors.Is(err, ErrUnknownClient) {
			s.log.Info("authserver: authorize with unknown client", "err", err)
			s.errorPage(w, http.StatusBadRequest, "Unknown application", strings.TrimPrefix(err.Error(), "authserver: "))
		} else {
			s.log.Error("authserver: client lookup", "err", err)
			s.errorPage(w, http.StatusInternalServerError, "Server error", "The application could not be looked up. Try again.")
		}
		return
	}
	redirectURI := q.Get("redirect_uri")
	if redirectURI == "" {
		s.errorPage(w, http.StatusBadRequest, "Invalid request", "redirect_uri is missing.")
		return
	}
	if !c.allowsRedirect(redirectURI) {
		s.log.Warn("authserver: redirect_uri not registered", "client_id", c.ID, "redirect_uri", redirectURI)
		s.errorPage(w, http.StatusBadRequest, "Invalid redirect address",
			"The redirect_uri is not registered for this application, so this server will not send you there.")
		return
	}
	// From here on, errors go back to the client's verified redirect URI.
	state := q.Get("state")
	fail := func(code, desc string) {
		s.redirect(w, r, http.StatusFound, redirectURI, url.Values{"error": {code}, "error_description": {desc}, "state": {state}})
	}
	for _, k := range authorizeParams {
		if len(q[k]) > 1 {
			fail("invalid_request", k+" appears more than once")
			return
		}
	}
	if len(state) > maxStateBytes {
		fail("invalid_request", "state is longer than 2048 bytes")
		return
	}
	if rt := q.Get("response_type"); rt != "code" {
		fail("unsupported_response_type", "response_type must be code")
		return
	}
	challenge := q.Get("code_challenge")
	if challenge == "" {
		fail("invalid_request", "code_challenge is required: use PKCE with code_challenge_method=S256")
		return
	}
	if q.Get("code_challenge_method") != "S256" {
		fail("invalid_request", "code_challenge_method must be S256 (plain is not allowed)")
		return
	}
	if !validChallenge(challenge) {
		fail("invalid_request", "code_challenge must be the 43-character base64url SHA-256 of the code verifier")
		return
	}
	resource, oerr := s.checkResource(q.Get("resource"), "")
	if oerr != nil {
		fail(oerr.Code, oerr.Description)
		return
	}
	scopes, oerr := s.grantScopes(q.Get("scope"))
	if oerr != nil {
		fail(oerr.Code, oerr.Description)
		return
	}
	p := &pendingRequest{
		client: c, redirectURI: redirectURI, state: state, challenge: challenge,
		resource: resource, scopes: scopes, expires: s.now().Add(pendingTTL),
		browser: s.bindBrowser(w, r), source: s.sourceOf(r),
	}
	id, ok := s.putPending(r.Context(), p)
	if !ok {
		s.errorPage(w, http.StatusServiceUnavailable, "Busy", "Too many sign-ins are in progress. Try again in a few minutes.")
		return
	}
	if sid, sess := s.sessionFrom(r); sess != nil {
		s.renderConsent(w, id, p, sid, sess)
		return
	}
	s.renderSignIn(w, http.StatusOK, id, p, "", "")
}

// validChallenge checks the shape of an S256 challenge: 32 bytes, base64url, no padding.
func validChallenge(c string) bool {
	if len(c) != 43 {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	return err == nil && len(b) == sha256.Size
}

// checkResource validates a resource indicator (RFC 8707). The only
// resource is the MCP endpoint; a trailing slash is tolerated. bound, when
// set, is the resource a code or refresh token was issued for, and an
// absent parameter then means that one.
func (s *Server) checkResource(requested, bound string) (string, *oauthError) {
	if requested == "" {
		if bound != "" {
			return bound, nil
		}
		return "", errInvalidTarget("resource is required; use " + s.resource)
	}
	if strings.TrimSuffix(requested, "/") != strings.TrimSuffix(s.resource, "/") {
		return "", errInvalidTarget("this server only issues tokens for resource " + s.resource)
	}
	return s.resource, nil
}

// grantScopes turns a requested scope string into granted scopes: unknown
// scopes are dropped, no scope at all means every supported scope.
func (s *Server) grantScopes(requested string) ([]string, *oauthError) {
	fields := strings.Fields(requested)
	if len(fields) == 0 {
		return slices.Clone(s.scopes), nil
	}
	var out []string
	for _, sc := range s.scopes {
		if slices.Contains(fields, sc) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return nil, errInvalidScope("none of the requested scopes is supported; use " + strings.Join(s.scopes, " "))
	}
	return out, nil
}

// redirect sends the browser back to the client with params plus iss (RFC 9207).
func (s *Server) redirect(w http.ResponseWriter, r *http.Request, status int, redirectURI string, params url.Values) {
	u, err := url.Parse(redirectURI)
	if err != nil { // validated earlier; never expected
		s.errorPage(w, http.StatusBadRequest, "Invalid redirect address", "The redirect_uri does not parse.")
		return
	}
	q := u.Query()
	for k, v := range params {
		if len(v) == 1 && v[0] == "" {
			continue
		}
		q[k] = v
	}
	q.Set("iss", s.issuer)
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, u.String(), status)
}

// sameOrigin refuses form posts a browser sent from another site (login
// CSRF, consent from a foreign page). Browsers send Origin on form posts;
// a request without one (curl, old clients) is let through to the other
// checks. The Origin's host must be the request's Host or the issuer's
// host (a tunnel may rewrite Host); schemes are not compared, since TLS may
// end at the tunnel.
func (s *Server) sameOrigin(w http.ResponseWriter, r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	if u, err := url.Parse(o); err == nil && u.Host != "" &&
		(strings.EqualFold(u.Host, r.Host) || strings.EqualFold(u.Host, s.issuerURL.Host)) {
		return true
	}
	s.log.Warn("authserver: cross-origin form post refused", "origin", o, "host", r.Host)
	s.errorPage(w, http.StatusForbidden, "Request refused", "This form was submitted from another site. Start again from the application.")
	return false
}

// readPendingForm reads a form posted on behalf of a pending authorization
// request: same origin, bounded body, a live request, the browser that
// opened it. On failure it has answered and returns ok false.
func (s *Server) readPendingForm(w http.ResponseWriter, r *http.Request, form string) (id string, p *pendingRequest, ok bool) {
	if !s.sameOrigin(w, r) {
		return "", nil, false
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, http.StatusBadRequest, "Invalid request", "The "+form+" form could not be read.")
		return "", nil, false
	}
	id = r.PostForm.Get("request")
	if p = s.getPending(r.Context(), id); p == nil {
		s.expiredPage(w)
		return "", nil, false
	}
	if !s.sameBrowser(w, r, p) {
		return "", nil, false
	}
	return id, p, true
}

func (s *Server) handleSignIn(w http.ResponseWriter, r *http.Request) {
	id, p, ok := s.readPendingForm(w, r, "sign-in")
	if !ok {
		return
	}
	username := strings.TrimSpace(r.PostForm.Get("username"))
	password := r.PostForm.Get("password")
	if username == "" || password == "" {
		s.renderSignIn(w, http.StatusBadRequest, id, p, username, "Enter your username and password.")
		return
	}
	source := s.sourceOf(r)
	if wait := s.signInBlocked(r.Context(), username, source); wait > 0 {
		s.log.Warn("authserver: sign-in refused: too many wrong passwords from this source", "username", username, "source", source)
		s.errorPage(w, http.StatusTooManyRequests, "Too many attempts",
			fmt.Sprintf("Too many wrong passwords from your network. Try again in %d minutes.", int(wait.Minutes())+1))
		return
	}
	select {
	case s.checks <- struct{}{}:
	case <-r.Context().Done():
		return
	}
	subject, name, err := s.users.Authenticate(r.Context(), username, password)
	<-s.checks
	if err != nil || subject == "" {
		if err == nil || errors.Is(err, ErrBadCredentials) {
			s.log.Info("authserver: failed sign-in", "username", username)
			s.signInFailed(r.Context(), username, source)
			if s.countFailure(r.Context(), id, p) {
				s.errorPage(w, http.StatusTooManyRequests, "Too many attempts", "Too many wrong passwords for this sign-in. Start again from the application.")
				return
			}
			s.renderSignIn(w, http.StatusUnauthorized, id, p, username, "Wrong username or password.")
			return
		}
		s.log.Error("authserver: authenticate", "err", err)
		s.renderSignIn(w, http.StatusInternalServerError, id, p, username, "Sign-in failed because of a server error. Try again.")
		return
	}
	s.signInSucceeded(r.Context(), username, source)
	if !s.startSession(w, r, subject, name, username) {
		return
	}
	http.Redirect(w, r, s.localPath(pathConsent)+"?request="+url.QueryEscape(id), http.StatusSeeOther)
}

func (s *Server) handleConsentPage(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("request")
	p := s.getPending(r.Context(), id)
	if p == nil {
		s.expiredPage(w)
		return
	}
	if !s.sameBrowser(w, r, p) {
		return
	}
	sid, sess := s.sessionFrom(r)
	if sess == nil {
		s.renderSignIn(w, http.StatusOK, id, p, "", "")
		return
	}
	s.renderConsent(w, id, p, sid, sess)
}

func (s *Server) handleConsent(w http.ResponseWriter, r *http.Request) {
	id, _, ok := s.readPendingForm(w, r, "consent")
	if !ok {
		return
	}
	sid, sess := s.sessionFrom(r)
	if sess == nil {
		s.errorPage(w, http.StatusForbidden, "Signed out", "Your sign-in session is missing or expired. Start again from the application.")
		return
	}
	if !hmac.Equal([]byte(r.PostForm.Get("csrf_token")), []byte(s.csrfToken(sid, id))) {
		s.log.Warn("authserver: consent with invalid CSRF token", "subject", sess.subject)
		s.errorPage(w, http.StatusForbidden, "Request refused", "The consent form was not submitted from this server's page (invalid CSRF token). Start again from the application.")
		return
	}
	p := s.takePending(r.Context(), id)
	if p == nil { // a concurrent submission of the same form won
		s.expiredPage(w)
		return
	}
	switch r.PostForm.Get("action") {
	case "allow":
		code := rand.Text()
		ok := s.putCode(r.Context(), code, &authCode{
			clientID: p.client.ID, redirectURI: p.redirectURI, challenge: p.challenge,
			resource: p.resource, scopes: p.scopes, subject: sess.subject,
			expires: s.now().Add(s.codeTTL),
		})
		if !ok {
			s.redirect(w, r, http.StatusSeeOther, p.redirectURI, url.Values{"error": {"temporarily_unavailable"}, "error_description": {"too many pending authorization codes; try again"}, "state": {p.state}})
			return
		}
		s.log.Info("authserver: consent granted", "client_id", p.client.ID, "subject", sess.subject, "scope", strings.Join(p.scopes, " "))
		s.redirect(w, r, http.StatusSeeOther, p.redirectURI, url.Values{"code": {code}, "state": {p.state}})
	case "deny":
		s.redirect(w, r, http.StatusSeeOther, p.redirectURI, url.Values{"error": {"access_denied"}, "error_description": {"the user denied access"}, "state": {p.state}})
	default:
		s.redirect(w, r, http.StatusSeeOther, p.redirectURI, url.Values{"error": {"invalid_request"}, "error_description": {"consent action must be allow or deny"}, "state": {p.state}})
	}
}

// setCookie sets a cookie of the authorization pages: sent only to the
// paths below pathAuthorize, never to scripts, over HTTPS when the issuer
// is, on top-level navigations from other sites, for ttl.
func (s *Server) setCookie(w http.ResponseWriter, name, value string, ttl time.Duration) {
	http.SetCookie(w, &http.Cookie{
		Name:     name,
		Value:    value,
		Path:     s.localPath(pathAuthorize),
		HttpOnly: true,
		Secure:   s.issuerURL.Scheme == "https",
		SameSite: http.SameSiteLaxMode,
		MaxAge:   int(ttl / time.Second),
	})
}

// bindBrowser returns the browser cookie of r, setting a new random one
// when r has none. One value serves all of a browser's pending requests,
// so sign-ins started in two tabs both work.
func (s *Server) bindBrowser(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(browserCookieName); err == nil && validBrowserValue(c.Value) {
		return c.Value
	}
	v := rand.Text()
	s.setCookie(w, browserCookieName, v, pendingTTL)
	return v
}

// validBrowserValue accepts what rand.Text makes: 26 base32 characters.
func validBrowserValue(v string) bool {
	if len(v) != 26 {
		return false
	}
	for _, c := range v {
		if !('A' <= c && c <= 'Z' || '2' <= c && c <= '7') {
			return false
		}
	}
	return true
}

// sameBrowser refuses a sign-in or consent for p from a browser other
// than the one that opened it, or writes nothing and reports true.
func (s *Server) sameBrowser(w http.ResponseWriter, r *http.Request, p *pendingRequest) bool {
	c, err := r.Cookie(browserCookieName)
	if err == nil && hmac.Equal([]byte(c.Value), []byte(p.browser)) {
		return true
	}
	s.log.Warn("authserver: sign-in request used from another browser", "client_id", p.client.ID)
	s.errorPage(w, http.StatusForbidden, "Request refused",
		"This sign-in was started in another browser, or your browser does not keep cookies. Start again from the application in this browser.")
	return false
}

func (s *Server) expiredPage(w http.ResponseWriter) {
	s.errorPage(w, http.StatusBadRequest, "Request expired", "This sign-in request is unknown or has expired. Start again from the application.")
}

func (s *Server) renderSignIn(w http.ResponseWriter, status int, id string, p *pendingRequest, username, msg string) {
	s.render(w, status, "signin", &pageData{
		Title: "Sign in", Action: s.localPath(pathSignIn), RequestID: id,
		ClientName: p.client.displayName(), Username: username, Error: msg, Hint: s.hint,
	})
}

func (s *Server) renderConsent(w http.ResponseWriter, id string, p *pendingRequest, sid string, sess *session) {
	d := &pageData{
		Title: "Allow access", Action: s.localPath(pathConsent), RequestID: id,
		ClientName: p.client.displayName(), UserName: sess.name,
		RedirectHost: redirectHost(p.redirectURI), CSRFToken: s.csrfToken(sid, id),
	}
	if !p.client.Dynamic {
		if u, err := url.Parse(p.client.ID); err == nil {
			d.ClientHost = u.Host
		}
	}
	for _, sc := range p.scopes {
		d.Scopes = append(d.Scopes, scopeView{Name: sc, Description: s.scopeDesc[sc]})
	}
	s.render(w, http.StatusOK, "consent", d)
}

// redirectHost is what the user is told they will be sent to.
func redirectHost(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	return u.Scheme + "://" + u.Host
}

// csrfToken binds a consent form to one browser session and one request.
func (s *Server) csrfToken(sessionID, requestID string) string {
	m := hmac.New(sha256.New, s.csrfKey)
	m.Write([]byte("consent\x00" + sessionID + "\x00" + requestID))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// sourceOf is the address a request comes from (Options.ClientAddress,
// by default the peer): an IPv4 address, or an IPv6 /64 prefix.
func (s *Server) sourceOf(r *http.Request) string {
	addr := r.RemoteAddr
	if s.clientAddress != nil {
		addr = s.clientAddress(r)
	}
	a, err := netip.ParseAddr(addr)
	if err != nil {
		ap, err := netip.ParseAddrPort(addr)
		if err != nil {
			return addr
		}
		a = ap.Addr()
	}
	a = a.Unmap()
	if a.Is6() {
		if pfx, err := a.Prefix(64); err == nil {
			return pfx.String()
		}
	}
	return a.String()
}

// failureCount counts wrong passwords for one key of s.failures.
type failureCount struct {
	count int
	since time.Time // first failure of the current window
}

func accountKey(username string) string { return strings.ToLower(strings.TrimSpace(username)) }

// Keys of s.failures: one source's guesses at one account, and one
// source's guesses at any account. NUL cannot occur in either part.
func pairKey(username, source string) string {
	return "account\x00" + accountKey(username) + "\x00" + source
}
func sourceKey(source string) string { return "source\x00" + source }

// signInBlocked returns how long source may not sign in to username (0:
// it may): the longer of this process's count and, with
// Options.GuessLimiter, the shared one. A shared limiter that fails is
// logged and this process's count decides alone.
func (s *Server) signInBlocked(ctx context.Context, username, source string) time.Duration {
	s.mu.Lock()
	wait := time.Duration(0)
	for _, k := range []struct {
		key string
		max int
	}{{pairKey(username, source), maxSourceAccountFailures}, {sourceKey(source), maxSourceFailures}} {
		f, ok := s.failures[k.key]
		if ok && f.count >= k.max {
			wait = max(wait, f.since.Add(failureWindow).Sub(s.now()))
		}
	}
	s.mu.Unlock()
	for _, g := range s.sharedGuesses(username, source) {
		d, err := g.lim.Blocked(ctx, g.key)
		if err != nil {
			s.log.Error("authserver: shared password throttle failed; this process's count decides", "err", err)
			continue
		}
		wait = max(wait, d)
	}
	return wait
}

// signInFailed records a wrong password for username from source.
func (s *Server) signInFailed(ctx context.Context, username, source string) {
	s.mu.Lock()
	s.countFailureKey(pairKey(username, source))
	s.countFailureKey(sourceKey(source))
	s.mu.Unlock()
	for _, g := range s.sharedGuesses(username, source) {
		if err := g.lim.Failed(ctx, g.key); err != nil {
			s.log.Error("authserver: shared password throttle failed; this process's count decides", "err", err)
		}
	}
}

// signInSucceeded clears source's count for username.
func (s *Server) signInSucceeded(ctx context.Context, username, source string) {
	s.mu.Lock()
	delete(s.failures, pairKey(username, source))
	s.mu.Unlock()
	if s.guessAccount != nil {
		if err := s.guessAccount.Clear(ctx, sharedPairKey(username, source)); err != nil {
			s.log.Error("authserver: shared password throttle failed to clear a count", "err", err)
		}
	}
}

// sharedGuess is one shared bucket a wrong password counts in.
type sharedGuess struct {
	lim GuessLimiter
	key string
}

// sharedGuesses are the shared buckets of username and source: none
// without Options.GuessLimiter.
func (s *Server) sharedGuesses(username, source string) []sharedGuess {
	if s.guessAccount == nil {
		return nil
	}
	return []sharedGuess{{s.guessAccount, sharedPairKey(username, source)}, {s.guessSource, strconv.Quote(source)}}
}

// sharedPairKey is pairKey for shared state, where keys are text without
// NUL: each part quoted, so no pair can spell another's key.
func sharedPairKey(username, source string) string {
	return strconv.Quote(accountKey(username)) + " " + strconv.Quote(source)
}

// countFailureKey counts one failure under key. The table is bounded:
// stale windows go first, then arbitrary entries (an attacker would need
// maxInMemory guesses from other sources to flush one counter). The
// caller holds s.mu.
func (s *Server) countFailureKey(key string) {
	now := s.now()
	f, ok := s.failures[key]
	if !ok || !now.Before(f.since.Add(failureWindow)) {
		if !ok && len(s.failures) >= maxInMemory {
			for k, v := range s.failures {
				if !now.Before(v.since.Add(failureWindow)) {
					delete(s.failures, k)
				}
			}
			for k := range s.failures {
				if len(s.failures) < maxInMemory {
					break
				}
				delete(s.failures, k)
			}
		}
		f = &failureCount{since: now}
		s.failures[key] = f
	}
	f.count++
}

// startSession opens a sign-in session for subject and sets its cookie;
// when no session can be opened it answers with an error page and
// returns false.
func (s *Server) startSession(w http.ResponseWriter, r *http.Request, subject, name, username string) bool {
	if name == "" {
		name = username
	}
	sid, ok := s.putSession(r.Context(), &session{subject: subject, name: name, expires: s.now().Add(s.sessionTTL)})
	if !ok {
		s.errorPage(w, http.StatusServiceUnavailable, "Busy", "Too many sessions are open. Try again in a few minutes.")
		return false
	}
	s.setCookie(w, sessionCookieName, sid, s.sessionTTL)
	w.Header().Set("Cache-Control", "no-store")
	return true
}
