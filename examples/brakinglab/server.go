package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/examples/brakinglab/authserver"
	"github.com/brakinglab/codemode-go/examples/brakinglab/demo"
	"github.com/brakinglab/codemode-go/examples/brakinglab/functions"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
	"github.com/brakinglab/codemode-go/oauthmeta"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// allScopes are the scopes BrakingLab's functions require: READ-ONLY
// functions need read, MUTATING and CREATIVE ones write.
var allScopes = []string{authserver.ScopeRead, authserver.ScopeWrite}

// shutdownGrace is how long in-flight requests may take to finish after
// SIGINT/SIGTERM before their contexts are cancelled. It exceeds the
// sandbox's default execution timeout, so running scripts normally end on
// their own.
const shutdownGrace = 15 * time.Second

// app is an opened BrakingLab: its database, catalog and code-mode server.
type app struct {
	cfg   *config
	log   *slog.Logger
	store *store.Store
	cat   *catalog.Catalog
	users []demoLogin // demo accounts to print; empty if none were seeded
}

// demoLogin is a demo account shown in the start-up banner.
type demoLogin struct{ Username, Password string }

// openApp opens (creating and migrating) the database, seeds the demo data
// into a database without users unless -no-demo, and builds the catalog.
func openApp(ctx context.Context, cfg *config, log *slog.Logger) (*app, error) {
	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, log: log, store: st}
	if err := a.seed(ctx); err != nil {
		st.Close()
		return nil, err
	}
	if a.cat, err = functions.New(st); err != nil {
		st.Close()
		return nil, fmt.Errorf("building the function catalog: %w", err)
	}
	return a, nil
}

// seed inserts the demo data on first start (demo.SeedStore does nothing
// once the demo user exists) and collects the demo logins whose passwords
// still work, for the banner and the sign-in page.
func (a *app) seed(ctx context.Context) error {
	if !a.cfg.NoDemo {
		start := time.Now()
		seeded, err := demo.SeedStore(ctx, a.store, nil)
		if err != nil {
			return err
		}
		if seeded {
			a.log.Info("seeded demo data", "db", a.cfg.DB, "took", time.Since(start).Round(time.Millisecond))
		}
	}
	for _, name := range []string{demo.DemoUser, demo.RivalUser} {
		pw := demo.DefaultPasswords[name]
		if _, err := a.store.AuthenticateUser(ctx, name, pw); err == nil {
			a.users = append(a.users, demoLogin{name, pw})
		}
	}
	return nil
}

// Close closes the database.
func (a *app) Close() error { return a.store.Close() }

// principal returns the identity of a local user (for -stdio and
// -insecure-no-auth) with every scope.
func (a *app) principal(ctx context.Context, username string) (catalog.Principal, error) {
	u, err := a.store.UserByUsername(ctx, username)
	if errors.Is(err, store.ErrNotFound) {
		return catalog.Principal{}, fmt.Errorf("no user %q in %s (demo users exist unless -no-demo was used on first start)", username, a.cfg.DB)
	}
	if err != nil {
		return catalog.Principal{}, err
	}
	return catalog.Principal{Subject: u.ID, ClientID: "local", Scopes: allScopes}, nil
}

// codemodeOptions are the settings shared by every mode.
func (a *app) codemodeOptions() *codemode.Options {
	return &codemode.Options{
		Title:        "BrakingLab",
		Version:      "1.0.0",
		Instructions: "BrakingLab is a sim-racing coaching service. Use execute_code to query the driver's sessions, laps, telemetry analysis, race calendar and notes, and to save coaching reports; its description declares every brakinglab.* function.",
		Logger:       a.log,
	}
}

// printTypes writes the TypeScript declarations the model sees.
func (a *app) printTypes(ctx context.Context, w io.Writer) error {
	opts := a.codemodeOptions()
	opts.SandboxMode = sandboxModeForTypes
	cm, err := codemode.New(a.cat, opts)
	if err != nil {
		return err
	}
	defer cm.Close()
	_, err = io.WriteString(w, cm.Declarations())
	return err
}

// serveStdio serves one local client over stdin/stdout as -user.
func (a *app) serveStdio(ctx context.Context) error {
	p, err := a.principal(ctx, a.cfg.User)
	if err != nil {
		return err
	}
	cm, err := codemode.New(a.cat, a.codemodeOptions())
	if err != nil {
		return err
	}
	defer cm.Close()
	a.log.Info("serving MCP over stdio", "user", a.cfg.User, "db", a.cfg.DB)
	err = cm.ServeStdio(ctx, p)
	if ctx.Err() != nil {
		return nil // interrupted: a normal end
	}
	return err
}

// httpServer is BrakingLab's HTTP side: the MCP endpoint, OAuth metadata
// and, unless an external issuer is trusted, the development authorization
// server.
type httpServer struct {
	handler  http.Handler
	mcpURL   string
	issuer   string // "" in -insecure-no-auth mode
	builtin  bool   // the development authorization server is running
	cm       *codemode.Server
	listener net.Listener
}

// listen opens the HTTP listener. main calls it before opening the
// database, so a taken port fails fast and touches nothing.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("%s is already in use: stop the other server or choose another address with -addr (port 0 picks a free one)", addr)
	}
	return ln, err
}

// newHTTPServer wires the handlers for ln's bound address (which matters
// when the port is 0). It closes ln on failure.
func (a *app) newHTTPServer(ctx context.Context, ln net.Listener) (*httpServer, error) {
	h, err := a.wire(ctx, ln.Addr().String())
	if err != nil {
		ln.Close()
		return nil, err
	}
	h.listener = ln
	return h, nil
}

// wire builds the handler for a server reachable at boundAddr.
func (a *app) wire(ctx context.Context, boundAddr string) (*httpServer, error) {
	cfg := a.cfg
	base := cfg.baseURL(boundAddr)
	local := (&config{}).baseURL(boundAddr) // this machine's own view, for fetching our keys
	h := &httpServer{mcpURL: base + codemode.DefaultMCPPath}
	opts := a.codemodeOptions()
	opts.AllowedOrigins = cfg.Origins
	// Behind a tunnel the Host header is the public name while the
	// connection comes from loopback: the DNS-rebinding guard would refuse
	// every request. Authentication stays on in that case.
	opts.DisableLocalhostProtection = cfg.PublicURL != "" && !isLoopbackPublicURL(cfg.PublicURL)

	mux := http.NewServeMux()
	switch {
	case cfg.NoAuth:
		p, err := a.principal(ctx, cfg.User)
		if err != nil {
			return nil, err
		}
		opts.Principal = &p
		// Test suites fire many requests at once as one user.
		opts.RatePerSecond = -1
	case cfg.Issuer != "":
		audience := cfg.Audience
		if audience == "" {
			audience = h.mcpURL
		}
		v, err := oauthmeta.NewJWTVerifier(cfg.Issuer, audience, nil)
		if err != nil {
			return nil, fmt.Errorf("-issuer: %w", err)
		}
		h.issuer = cfg.Issuer
		opts.Auth = &codemode.Auth{
			Verifier:             &externalUsers{v: v, st: a.store, issuer: cfg.Issuer, log: a.log},
			Resource:             h.mcpURL,
			AuthorizationServers: []string{cfg.Issuer},
			ScopesSupported:      allScopes,
		}
	default:
		as, err := authserver.New(a.store.DB(), storeUsers{a.store}, &authserver.Options{
			Issuer:         base,
			Resource:       h.mcpURL,
			AccessTokenTTL: cfg.TokenTTL,
			SignInHint:     a.signInHint(),
			Logger:         a.log,
		})
		if err != nil {
			return nil, err
		}
		v, err := oauthmeta.NewJWTVerifier(as.Issuer(), h.mcpURL, &oauthmeta.JWTOptions{
			JWKSURL:    local + strings.TrimPrefix(as.JWKSURL(), as.Issuer()),
			Algorithms: []string{"ES256"},
			// Issuer and verifier share this process's clock.
			ClockSkew: -1,
		})
		if err != nil {
			return nil, err
		}
		h.issuer, h.builtin = as.Issuer(), true
		opts.Auth = &codemode.Auth{
			Verifier:             v,
			Resource:             h.mcpURL,
			AuthorizationServers: []string{as.Issuer()},
			ScopesSupported:      allScopes,
			AuthServer:           as.Metadata(), // served through oauthmeta with the resource metadata
		}
		for _, p := range as.Paths() {
			if p != as.MetadataPath() {
				mux.Handle(p, as)
			}
		}
	}
	cm, err := codemode.New(a.cat, opts)
	if err != nil {
		return nil, err
	}
	if cfg.Fixtures {
		addConformanceFixtures(cm.MCPServer())
	}
	mux.Handle("/", cm.Handler())
	h.cm, h.handler = cm, mux
	return h, nil
}

// isLoopbackPublicURL reports whether a -public-url still points at this machine.
func isLoopbackPublicURL(s string) bool {
	host := strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://")
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return isLoopbackHost(host)
}

// signInHint is shown under the sign-in form.
func (a *app) signInHint() string {
	if len(a.users) == 0 {
		return ""
	}
	var parts []string
	for _, u := range a.users {
		parts = append(parts, u.Username+" / "+u.Password)
	}
	return "Demo accounts: " + strings.Join(parts, ", ") + "."
}

// serve runs the HTTP server until ctx ends, then shuts down gracefully:
// no new connections, in-flight requests get shutdownGrace to finish, then
// their contexts are cancelled (which stops running scripts).
func (h *httpServer) serve(ctx context.Context, log *slog.Logger) error {
	srv := &http.Server{
		Handler:           h.handler,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(h.listener) }()
	select {
	case err := <-errc:
		h.cm.Close()
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests", "grace", shutdownGrace)
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		log.Warn("requests still running after the grace period: cancelling them", "err", err)
		srv.Close()
		err = nil
	}
	if cerr := h.cm.Close(); cerr != nil {
		log.Warn("closing the sandbox", "err", cerr)
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}

// externalUsers maps the users of an external issuer to BrakingLab
// accounts. The catalog finds the caller by store user ID, so the first
// valid token of a new (issuer, sub) pair creates an account whose ID is
// derived from both; it has a random password, since that user signs in at
// the issuer, never on BrakingLab's own page.
type externalUsers struct {
	v      oauthmeta.Verifier
	st     *store.Store
	issuer string
	log    *slog.Logger
}

// Verify checks the token with the issuer's keys, then swaps the external
// subject for the local account's ID.
func (e *externalUsers) Verify(ctx context.Context, token string) (*oauthmeta.Token, error) {
	tok, err := e.v.Verify(ctx, token)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(e.issuer + "\x00" + tok.Principal.Subject))
	id := "ext_" + hex.EncodeToString(sum[:10])
	if _, err := e.st.UserBySubject(ctx, id); errors.Is(err, store.ErrNotFound) {
		name := tok.Principal.Subject
		for _, claim := range []string{"name", "preferred_username", "email"} {
			if v, ok := tok.Claims[claim].(string); ok && v != "" {
				name = v
				break
			}
		}
		_, err = e.st.CreateUser(ctx, id, id, name, rand.Text())
		if err != nil && !errors.Is(err, store.ErrExists) {
			return nil, fmt.Errorf("creating the account of %s: %w", name, err)
		}
		if err == nil {
			e.log.Info("created an account for an external user", "issuer", e.issuer, "user", id)
		}
	} else if err != nil {
		return nil, err
	}
	tok.Principal.Subject = id
	return tok, nil
}

// ClockSkew passes the wrapped verifier's tolerance on to the middleware.
func (e *externalUsers) ClockSkew() time.Duration {
	if s, ok := e.v.(interface{ ClockSkew() time.Duration }); ok {
		return s.ClockSkew()
	}
	return oauthmeta.DefaultClockSkew
}

// storeUsers lets the authorization server check passwords against the store.
type storeUsers struct{ st *store.Store }

func (s storeUsers) Authenticate(ctx context.Context, username, password string) (subject, displayName string, err error) {
	u, err := s.st.AuthenticateUser(ctx, username, password)
	if errors.Is(err, store.ErrInvalidCredentials) {
		return "", "", fmt.Errorf("%w", authserver.ErrBadCredentials)
	}
	if err != nil {
		return "", "", err
	}
	name := u.DisplayName
	if name == "" {
		name = u.Username
	}
	return u.ID, name, nil
}

// addConformanceFixtures adds the resource the MCP conformance suite's
// resources-read-text scenario reads. Only -insecure-no-auth test runs use it.
func addConformanceFixtures(srv *mcp.Server) {
	const uri = "test://static-text"
	srv.AddResource(&mcp.Resource{
		URI: uri, Name: "static-text", Description: "Conformance suite fixture", MIMEType: "text/plain",
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: uri, MIMEType: "text/plain", Text: "This is the content of the static text resource.",
		}}}, nil
	})
}
