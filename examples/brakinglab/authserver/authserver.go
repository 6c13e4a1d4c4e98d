package authserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/brakinglab/codemode-go/oauthmeta"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/time/rate"
)

// Scopes BrakingLab's MCP endpoint understands.
const (
	ScopeRead  = "brakinglab:read"
	ScopeWrite = "brakinglab:write"
)

// Defaults used when the matching Options field is zero.
const (
	DefaultAccessTokenTTL  = 15 * time.Minute
	DefaultCodeTTL         = 60 * time.Second
	DefaultRefreshTokenTTL = 30 * 24 * time.Hour
	DefaultSessionTTL      = 12 * time.Hour
	DefaultMaxClients      = 1000

	// Dynamic registrations are limited to registrationsPerSecond on average
	// (bursts of registrationBurst), server-wide: replacing the default
	// 1000 never-used clients then takes over eight minutes.
	registrationsPerSecond = 2
	registrationBurst      = 30
	// DefaultMaxRotations caps refreshes of one grant (each keeps a hash to
	// recognise reuse): about 35 days of refreshing every 5 minutes.
	DefaultMaxRotations = 10000
	// DefaultMaxGrants caps one user's refresh-token grants; the oldest go first.
	DefaultMaxGrants = 200
)

// UserAuthenticator checks a username and password typed into the sign-in page.
// BrakingLab's store implements it.
type UserAuthenticator interface {
	// Authenticate returns the user's stable subject identifier (the token's
	// sub claim) and a name to show on the consent page. Wrong credentials
	// must return an error wrapping ErrBadCredentials; other errors are
	// logged and shown as a generic failure.
	Authenticate(ctx context.Context, username, password string) (subject, displayName string, err error)
}

// Options configures a Server. Issuer and Resource are required; every
// other zero value means the documented default.
type Options struct {
	// Issuer is the authorization server's issuer URL (RFC 8414), e.g.
	// "http://127.0.0.1:8080". Endpoints live below its path. Required.
	Issuer string
	// Resource is the canonical URL of the MCP endpoint (RFC 8707). It is the
	// only resource tokens are issued for and the aud claim of every token.
	// Required.
	Resource string
	// ScopesSupported lists the scopes clients may request. A request
	// without scope gets all of them. Default: ScopeRead, ScopeWrite.
	ScopesSupported []string
	// ScopeDescriptions explains scopes on the consent page. Defaults cover
	// ScopeRead and ScopeWrite.
	ScopeDescriptions map[string]string
	// AccessTokenTTL is the access tokens' lifetime. Default 15 minutes.
	AccessTokenTTL time.Duration
	// CodeTTL is the authorization codes' lifetime. Default 60 seconds.
	CodeTTL time.Duration
	// RefreshTokenTTL bounds a refresh-token family's total lifetime. Default 30 days.
	RefreshTokenTTL time.Duration
	// SessionTTL is how long a browser stays signed in. Default 12 hours.
	SessionTTL time.Duration
	// MaxClients caps the dynamically registered clients kept; beyond it the
	// oldest never-used clients are pruned first, then the least recently
	// used. Default 1000.
	MaxClients int
	// HTTPClient fetches client ID metadata documents. The default refuses
	// connections to private, loopback, link-local and other special
	// addresses. A client set here replaces that guard (tests use it to fetch
	// from a loopback TLS server); redirects are refused either way.
	HTTPClient *http.Client
	// SignInHint is shown under the sign-in form, e.g. the demo accounts.
	SignInHint string
	// Now returns the current time; tests move it. Default time.Now.
	Now func() time.Time
	// Logger receives security events (code replay, refresh-token reuse,
	// refused metadata fetches). Default: discard.
	Logger *slog.Logger
	// ClientAddress returns the address of the browser behind a request,
	// which password-guess throttling and the pending sign-ins' bound are
	// kept per. Default: the peer address, ignoring forwarding headers
	// (clients set them). Behind a reverse proxy you run, return the
	// address the proxy forwards (the entry it appends to
	// X-Forwarded-For); otherwise every browser shares the proxy's
	// address and its limits.
	ClientAddress func(*http.Request) string
	// GuessLimiter, if set, also counts wrong passwords in state shared
	// by replicas, so that two replicas behind a proxy do not allow twice
	// the guesses. New calls it twice, for token buckets with the
	// throttle's settings: "signin-account" (one source's wrong passwords
	// at one account, 10 per 15 minutes) and "signin-source" (one
	// source's at any account, 100 per 15 minutes). The package
	// codemode/pgstate's (*State).Limiter fits, and falls back to a
	// per-process bucket while its database is down. A source is refused
	// while either this process's count or the shared one says so; a
	// limiter error is logged and leaves this process's count to decide.
	// Nil: the throttle is per process.
	GuessLimiter func(name string, perSecond float64, burst int) GuessLimiter
}

// GuessLimiter is a token bucket per key in state that replicas share
// (see Options.GuessLimiter).
type GuessLimiter interface {
	// Blocked returns 0 when key has a token left, or how long until it
	// has one.
	Blocked(ctx context.Context, key string) (time.Duration, error)
	// Failed takes one token from key's bucket, even past empty.
	Failed(ctx context.Context, key string) error
	// Clear fills key's bucket again.
	Clear(ctx context.Context, key string) error
}

// Server is the authorization server. It is an http.Handler serving its
// endpoints at their full paths; Mount registers them on a mux.
type Server struct {
	db         *sql.DB
	users      UserAuthenticator
	issuer     string
	issuerURL  *url.URL
	resource   string
	scopes     []string
	scopeDesc  map[string]string
	accessTTL  time.Duration
	codeTTL    time.Duration
	refreshTTL time.Duration
	sessionTTL time.Duration
	maxClients int
	// maxRotations and maxFamilies bound the refresh-token tables (tests lower them).
	maxRotations int
	maxFamilies  int
	hint         string
	now          func() time.Time
	log          *slog.Logger

	keys *keyRing
	cimd *cimdResolver
	mux  *http.ServeMux
	meta oauthex.AuthServerMeta

	// registrations rate-limits dynamic client registration, so a flood
	// cannot prune the clients users have just registered.
	registrations *rate.Limiter

	// checks bounds password checks running at once: each is a bcrypt
	// comparison, and anyone may submit sign-ins.
	checks chan struct{}

	// csrfKey signs consent CSRF tokens. It is stored in the database, as
	// sessions are, so a consent page served by one replica can be
	// submitted to another.
	csrfKey []byte
	// clientAddress is Options.ClientAddress; nil means the peer address.
	clientAddress func(*http.Request) string

	// guessAccount and guessSource are the shared password throttle
	// (Options.GuessLimiter); nil without one.
	guessAccount, guessSource GuessLimiter

	mu       sync.Mutex
	failures map[string]*failureCount // wrong passwords per account and source, and per source
}

// Endpoint paths relative to the issuer URL's path.
const (
	pathAuthorize = "/authorize"
	pathSignIn    = "/authorize/signin"
	pathConsent   = "/authorize/consent"
	pathToken     = "/token"
	pathRegister  = "/register"
	pathJWKS      = "/jwks"
	// MetadataPathPrefix is prepended to the issuer's path to form the RFC 8414 metadata path.
	MetadataPathPrefix = "/.well-known/oauth-authorization-server"
)

// New creates a Server, applying its migrations to db and loading (or
// creating) its signing key. users checks sign-in credentials.
//
// db is an SQLite database or a PostgreSQL one (opened through BrakingLab's
// store). Everything a later request depends on is kept there: clients,
// pending sign-ins, browser sessions, authorization codes, refresh-token
// families and the keys, so any number of Servers on one PostgreSQL
// database behave as one: a token minted by one verifies on the others,
// and a refresh token reused on another is recognised. Only the
// registration rate limit is per process, and the password-guess
// throttle (wrong passwords per account and source) unless
// Options.GuessLimiter shares it.
func New(db *sql.DB, users UserAuthenticator, opts *Options) (*Server, error) {
	if db == nil {
		return nil, errors.New("authserver: nil database")
	}
	if users == nil {
		return nil, errors.New("authserver: nil UserAuthenticator")
	}
	if opts == nil {
		opts = &Options{}
	}
	iss, err := parseBaseURL("Issuer", opts.Issuer)
	if err != nil {
		return nil, err
	}
	if _, err := parseBaseURL("Resource", opts.Resource); err != nil {
		return nil, err
	}
	s := &Server{
		db:            db,
		users:         users,
		issuer:        strings.TrimSuffix(opts.Issuer, "/"),
		issuerURL:     iss,
		resource:      opts.Resource,
		scopes:        opts.ScopesSupported,
		scopeDesc:     opts.ScopeDescriptions,
		accessTTL:     orDefault(opts.AccessTokenTTL, DefaultAccessTokenTTL),
		codeTTL:       orDefault(opts.CodeTTL, DefaultCodeTTL),
		refreshTTL:    orDefault(opts.RefreshTokenTTL, DefaultRefreshTokenTTL),
		sessionTTL:    orDefault(opts.SessionTTL, DefaultSessionTTL),
		maxClients:    opts.MaxClients,
		maxRotations:  DefaultMaxRotations,
		maxFamilies:   DefaultMaxGrants,
		hint:          opts.SignInHint,
		now:           opts.Now,
		log:           opts.Logger,
		failures:      map[string]*failureCount{},
		checks:        make(chan struct{}, max(runtime.GOMAXPROCS(0)/2, 1)),
		registrations: rate.NewLimiter(registrationsPerSecond, registrationBurst),
	}
	s.clientAddress = opts.ClientAddress
	if g := opts.GuessLimiter; g != nil {
		per := failureWindow.Seconds()
		s.guessAccount = g("signin-account", maxSourceAccountFailures/per, maxSourceAccountFailures)
		s.guessSource = g("signin-source", maxSourceFailures/per, maxSourceFailures)
		if s.guessAccount == nil || s.guessSource == nil {
			return nil, errors.New("authserver: Options.GuessLimiter returned nil")
		}
	}
	if len(s.scopes) == 0 {
		s.scopes = []string{ScopeRead, ScopeWrite}
	}
	for _, sc := range s.scopes {
		if sc == "" || strings.ContainsAny(sc, " \"\\") {
			return nil, fmt.Errorf("authserver: invalid scope %q", sc)
		}
	}
	if s.scopeDesc == nil {
		s.scopeDesc = map[string]string{
			ScopeRead:  "Read your profile, sessions, laps, telemetry, notes, race events and coaching reports.",
			ScopeWrite: "Change your data: create, edit and delete notes and race events, and save coaching reports and strategies.",
		}
	}
	if s.maxClients <= 0 {
		s.maxClients = DefaultMaxClients
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.cimd = newCIMDResolver(opts.HTTPClient, s.now, s.log)

	ctx := context.Background()
	if err := migrate(ctx, db); err != nil {
		return nil, err
	}
	if s.keys, err = loadKeyRing(ctx, db, s.now); err != nil {
		return nil, err
	}
	if s.csrfKey, err = loadSecret(ctx, db, "consent-csrf"); err != nil {
		return nil, err
	}
	s.meta = s.buildMetadata()
	// MCP clients refuse metadata with, e.g., plain-http endpoints off loopback.
	if err := oauthmeta.CheckAuthServerMeta(&s.meta); err != nil {
		return nil, fmt.Errorf("authserver: %w", err)
	}
	s.mux = s.routes()
	return s, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// parseBaseURL checks an absolute http(s) URL without query or fragment.
func parseBaseURL(field, raw string) (*url.URL, error) {
	if raw == "" {
		return nil, fmt.Errorf("authserver: Options.%s is required", field)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("authserver: Options.%s %q must be an absolute http(s) URL without query or fragment", field, raw)
	}
	return u, nil
}

// endpoint returns the absolute URL of an endpoint path.
func (s *Server) endpoint(p string) string { return s.issuer + p }

// localPath returns the request path an endpoint is served at.
func (s *Server) localPath(p string) string {
	return strings.TrimSuffix(s.issuerURL.EscapedPath(), "/") + p
}

// MetadataPath is the path where RFC 8414 metadata for this issuer is served.
func (s *Server) MetadataPath() string {
	return MetadataPathPrefix + strings.TrimSuffix(s.issuerURL.EscapedPath(), "/")
}

func (s *Server) buildMetadata() oauthex.AuthServerMeta {
	return oauthex.AuthServerMeta{
		Issuer:                                     s.issuer,
		AuthorizationEndpoint:                      s.endpoint(pathAuthorize),
		TokenEndpoint:                              s.endpoint(pathToken),
		RegistrationEndpoint:                       s.endpoint(pathRegister),
		JWKSURI:                                    s.endpoint(pathJWKS),
		ScopesSupported:                            append([]string(nil), s.scopes...),
		ResponseTypesSupported:                     []string{"code"},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported:          []string{"none"},
		CodeChallengeMethodsSupported:              []string{"S256"},
		ClientIDMetadataDocumentSupported:          true,
		AuthorizationResponseIssParameterSupported: true,
	}
}

// Metadata returns the RFC 8414 metadata document this server serves.
func (s *Server) Metadata() *oauthex.AuthServerMeta {
	m := s.buildMetadata()
	return &m
}

// Issuer returns the issuer URL (the iss claim of every token).
func (s *Server) Issuer() string { return s.issuer }

// JWKSURL returns the absolute URL of the JSON Web Key Set.
func (s *Server) JWKSURL() string { return s.endpoint(pathJWKS) }

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	// The lead's server serves Metadata() through oauthmeta.Mount next to the
	// resource metadata; this route makes the Server complete on its own.
	mux.Handle(s.MetadataPath(), oauthmeta.AuthServerMetadataHandler(&s.meta))
	mux.HandleFunc("GET "+s.localPath(pathJWKS), s.cors(s.handleJWKS))
	mux.HandleFunc("OPTIONS "+s.localPath(pathJWKS), s.cors(nil))
	mux.HandleFunc("POST "+s.localPath(pathRegister), s.cors(s.handleRegister))
	mux.HandleFunc("OPTIONS "+s.localPath(pathRegister), s.cors(nil))
	mux.HandleFunc("POST "+s.localPath(pathToken), s.cors(s.handleToken))
	mux.HandleFunc("OPTIONS "+s.localPath(pathToken), s.cors(nil))
	mux.HandleFunc("GET "+s.localPath(pathAuthorize), s.handleAuthorize)
	mux.HandleFunc("POST "+s.localPath(pathSignIn), s.handleSignIn)
	mux.HandleFunc("GET "+s.localPath(pathConsent), s.handleConsentPage)
	mux.HandleFunc("POST "+s.localPath(pathConsent), s.handleConsent)
	mux.HandleFunc("GET "+s.localPath(pathLogin), s.handleLoginPage)
	mux.HandleFunc("POST "+s.localPath(pathLogin), s.handleLogin)
	return mux
}

// Paths lists the request paths the server answers, for mounting.
func (s *Server) Paths() []string {
	return []string{
		s.MetadataPath(),
		s.localPath(pathJWKS),
		s.localPath(pathRegister),
		s.localPath(pathToken),
		s.localPath(pathAuthorize),
		s.localPath(pathSignIn),
		s.localPath(pathConsent),
		s.localPath(pathLogin),
	}
}

// Mount registers every path of the server on mux.
func (s *Server) Mount(mux *http.ServeMux) {
	for _, p := range s.Paths() {
		mux.Handle(p, s)
	}
}

// ServeHTTP serves the server's endpoints.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

// cors lets browser-based clients (e.g. the MCP Inspector) call the
// endpoints that carry no cookies. next == nil answers a preflight.
func (s *Server) cors(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, Mcp-Protocol-Version")
		h.Set("Access-Control-Max-Age", "600")
		if next == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next(w, r)
	}
}
