package codemode

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/httpmw"
	"github.com/brakinglab/codemode-go/oauthmeta"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
)

// Handler returns the HTTP handler of the whole server. From the outside
// in: CORS (the default AI-client origins plus Options.AllowedOrigins),
// then on the MCP path a request body limit, a per-IP limit on failed
// authentication and bearer authentication (when Options.Auth is set), a
// per-principal limit on executions, in stateless mode the
// registry that lets a notifications/cancelled POST reach the call it
// names, and go-sdk's Streamable HTTP handler with its DNS-rebinding
// guard. With Auth, the RFC 9728 metadata is served at /.well-known/oauth-protected-resource and at the
// same prefix followed by the MCP path.
//
// Mount it at the root of a server (or strip a prefix consistently with
// Auth.Resource). The handler is built once; later calls return it again.
func (s *Server) Handler() http.Handler {
	s.handlerOnce.Do(func() { s.handler = s.buildHandler() })
	return s.handler
}

func (s *Server) buildHandler() http.Handler {
	o := &s.opts
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:                    !o.Stateful,
		Logger:                       sdkLogger(s.logger),
		DisableLocalhostProtection:   o.DisableLocalhostProtection,
		MaxRequestBodyBytes:          o.MaxBodyBytes,
		PropagateRequestCancellation: true,
		// Stateful sessions a client abandons must not pile up.
		SessionTimeout: sessionIdleTimeout,
	})

	var limiter httpmw.Limiter
	switch {
	case o.RateLimiter != nil:
		limiter = o.RateLimiter
	case o.RatePerSecond > 0:
		limiter = httpmw.NewRateLimiter(o.RatePerSecond, o.RateBurst)
	}
	var endpoint http.Handler = streamable
	if !o.Stateful {
		// A stateful session cancels by itself: the notification reaches
		// the session that runs the call.
		var reg httpmw.CallRegistry = s.cancels
		if o.Cancellations != nil {
			reg = o.Cancellations
		}
		endpoint = httpmw.Cancellation(reg, cancelKey, s.logger)(endpoint)
	}
	// Executions are what cost: each tools/call (also inside a batch)
	// takes a token, set-up traffic takes none.
	endpoint = httpmw.RateLimitCost(s.tel.limited(limiter), principalKey, httpmw.ExecutionCost, s.logger)(endpoint)

	mux := http.NewServeMux()
	if a := o.Auth; a != nil {
		prmURL, _ := oauthmeta.ResourceMetadataURL(a.Resource) // checked in New
		bearer := bearer.RequireBearer(a.Verifier, &bearer.BearerOptions{
			ResourceMetadataURL: prmURL,
			Scopes:              a.Scopes,
			SuggestedScopes:     s.scopesSupported(),
			Logger:              s.logger,
		})
		// Failures are limited before the token is checked: verifying can
		// be costly (introspection, fetching keys for an unknown kid) and
		// the per-principal limit only applies after it.
		var failures httpmw.FailureCounter
		switch {
		case o.FailureLimiter != nil:
			failures = o.FailureLimiter
		case o.AuthFailuresPerSecond > 0:
			failures = httpmw.NewRateLimiter(o.AuthFailuresPerSecond, o.AuthFailureBurst)
		}
		endpoint = httpmw.FailureLimit(failures, bearer, s.logger)(endpoint)
		// Checked in New, so Mount cannot fail on this fresh mux.
		_ = oauthmeta.Mount(mux, s.prm, a.AuthServer)
	} else if o.Principal != nil {
		p := *o.Principal
		s.logger.Warn("codemode: HTTP authentication is off; every request acts as the configured principal", "subject", p.Subject, "remote", o.InsecureRemotePrincipal)
		next := endpoint
		endpoint = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(catalog.WithPrincipal(r.Context(), p)))
		})
		if !o.InsecureRemotePrincipal {
			endpoint = loopbackOnly(endpoint)
		}
	}
	endpoint = httpmw.BodyLimit(o.MaxBodyBytes)(endpoint)
	mux.Handle(o.MCPPath, endpoint)
	return httpmw.CORS(s.origins)(mux)
}

// sessionIdleTimeout closes a stateful session after this long without a
// request. Ignored in stateless mode.
const sessionIdleTimeout = 30 * time.Minute

// principalKey keys the rate limit on the authenticated subject; anonymous
// requests fall back to the client IP.
func principalKey(r *http.Request) string {
	if p, ok := catalog.PrincipalFrom(r.Context()); ok && p.Subject != "" {
		return "sub:" + p.Subject
	}
	return ""
}

// cancelKey is whose calls a notifications/cancelled POST may cancel: the
// same subject through the same client, or, without a principal, the same
// client address (all anonymous callers are one principal; the address at
// least keeps remote strangers apart).
func cancelKey(r *http.Request) string {
	if p, ok := catalog.PrincipalFrom(r.Context()); ok && p.Subject != "" {
		// Quoted, so no subject and client pair can spell another's key.
		return "sub:" + strconv.Quote(p.Subject) + " client:" + strconv.Quote(p.ClientID)
	}
	return "ip:" + httpmw.RemoteIP(r)
}

// joinCancellation lets a notifications/cancelled POST, which a stateless
// handler serves in a session of its own, cancel a tools/call in flight.
func joinCancellation(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		ctx, stop := httpmw.Cancellable(ctx)
		defer stop()
		return next(ctx, method, req)
	}
}

func (s *Server) scopesSupported() []string {
	a := s.opts.Auth
	if len(a.ScopesSupported) > 0 {
		return a.ScopesSupported
	}
	out := slices.Clone(a.Scopes)
	for _, f := range s.cat.Functions() {
		for _, sc := range f.Scopes {
			if !slices.Contains(out, sc) {
				out = append(out, sc)
			}
		}
	}
	slices.Sort(out)
	return out
}

func (s *Server) resourceName() string {
	switch {
	case s.opts.Auth.ResourceName != "":
		return s.opts.Auth.ResourceName
	case s.opts.Title != "":
		return s.opts.Title
	}
	return strings.TrimSpace(s.opts.Name)
}
