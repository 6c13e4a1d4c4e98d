package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/examples/brakinglab/authserver"
	"github.com/brakinglab/codemode-go/health"
	"github.com/brakinglab/codemode-go/oauthmeta/jwtverify"
)

// shutdownGrace is how long in-flight requests may take to finish after
// SIGINT/SIGTERM before their contexts are cancelled. It exceeds the
// sandbox's default execution timeout, so running scripts normally end on
// their own.
const shutdownGrace = 15 * time.Second

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
	opts.HTTP.AllowedOrigins = cfg.Origins
	// Behind a tunnel the Host header is the public name while the
	// connection comes from loopback: the DNS-rebinding guard would refuse
	// every request. Authentication stays on in that case.
	opts.HTTP.DisableLocalhostProtection = cfg.PublicURL != "" && !isLoopbackPublicURL(cfg.PublicURL)
	// Checked when the flag was parsed.
	opts.HTTP.ClientAddress, _ = codemode.ForwardedFor(cfg.Proxies...)

	mux := http.NewServeMux()
	pageMount := "" // where the approval page is served, if it is
	switch {
	case cfg.NoAuth:
		p, err := a.principal(ctx, cfg.User)
		if err != nil {
			return nil, err
		}
		opts.Principal = &p
		// Test suites fire many requests at once as one user.
		opts.RateLimits.RatePerSecond, opts.RateLimits.RequestsPerSecond = -1, -1
	case cfg.Issuer != "":
		audience := cfg.Audience
		if audience == "" {
			audience = h.mcpURL
		}
		v, err := jwtverify.New(cfg.Issuer, audience, nil)
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
		guesses, err := a.guessLimiter(ctx)
		if err != nil {
			return nil, err
		}
		as, err := authserver.New(a.store.DB(), storeUsers{a.store}, &authserver.Options{
			Issuer:         base,
			Resource:       h.mcpURL,
			AccessTokenTTL: cfg.TokenTTL,
			SignInHint:     a.signInHint(),
			Logger:         a.log,
			GuessLimiter:   guesses,
			ClientAddress:  opts.HTTP.ClientAddress,
		})
		if err != nil {
			return nil, err
		}
		v, err := jwtverify.New(as.Issuer(), h.mcpURL, &jwtverify.Options{
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
		// The approval page, for clients that cannot ask the user: under
		// /authorize, where the sign-in session cookie is sent.
		page := strings.TrimSuffix(as.Issuer(), "/") + approvalPagePath
		opts.Approvals.Page = &approval.Page{
			URL: page,
			Authenticate: func(r *http.Request) (catalog.Principal, bool) {
				sub, ok := as.SignedIn(r)
				return catalog.Principal{Subject: sub}, ok
			},
			SignIn: as.SignInRedirect,
		}
		if u, err := url.Parse(page); err == nil {
			pageMount = u.Path
		}
	}
	if err := a.shareState(ctx, opts); err != nil {
		return nil, err
	}
	cm, err := codemode.New(a.cat, opts)
	if err != nil {
		return nil, err
	}
	if cfg.Fixtures {
		addConformanceFixtures(cm.MCPServer())
	}
	// Probes: alive while it serves; ready while the database answers
	// and a sandbox worker can start. Anonymous callers read the verdict
	// only: a failed check's error (the driver's names the database user,
	// name and host:port) goes to the log.
	health.Mount(mux, map[string]health.Check{
		"database": a.store.DB().PingContext,
		"sandbox":  cm.CheckWorker,
	}, &health.Options{CacheFor: time.Second, Logger: a.log})
	if a.metrics != nil {
		mux.Handle("GET /metrics", a.metrics)
	}
	if pageMount != "" {
		mux.Handle(pageMount, cm.ApprovalHandler())
	}
	mux.Handle("/", cm.Handler())
	h.cm, h.handler = cm, bodyDeadline(bodyReadTimeout, mux)
	return h, nil
}

// approvalPagePath is where the approval page is served, below the issuer.
const approvalPagePath = "/authorize/approve/"

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
		IdleTimeout:       2 * time.Minute,
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

// bodyReadTimeout is how long a request has to deliver its body. Without
// it a client that sends headers and then withholds the body (slowloris)
// holds a connection and a goroutine for ever. http.Server.ReadTimeout is
// not used: it would stay armed while the handler runs and cancel the
// requests of long executions.
const bodyReadTimeout = 30 * time.Second

// bodyDeadline arms a read deadline of d for r's body and clears it once
// the body has been read to its end.
func bodyDeadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(d)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, clear: func() { rc.SetReadDeadline(time.Time{}) }}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody clears the read deadline when the body ends.
type deadlineBody struct {
	io.ReadCloser
	clear func()
	done  bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		b.clear()
	}
	return n, err
}
