package codemode

import (
	"net/http"
	"slices"
	"strings"

	"github.com/brakinglab/codemode-go/internal/httpmw"
	"github.com/brakinglab/codemode-go/internal/savedlist"
	"github.com/brakinglab/codemode-go/oauthmeta"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
)

// Handler returns the HTTP handler of the whole server. From the outside
// in: CORS (the default AI-client origins plus Options.HTTP.AllowedOrigins),
// then on the MCP path a request body limit, a per-IP limit on failed
// authentication and bearer authentication (when Options.Auth is set),
// the JSON-RPC envelope check (no batches on revisions that removed them,
// at most 10 messages in one elsewhere), a per-principal limit on every
// message and one on executions, the registry that lets a
// notifications/cancelled POST outside a session reach the call it names,
// and the endpoint [Server.StreamableHTTPHandler] builds over MCPServer():
// go-sdk's Streamable HTTP handlers, with their DNS-rebinding guard, one
// serving sessions for the clients that need them (see Options.HTTP.Stateful)
// and one serving every other request statelessly. With Auth, the RFC
// 9728 metadata is served at /.well-known/oauth-protected-resource and at
// the same prefix followed by the MCP path.
//
// Mount it at the root of a server (or strip a prefix consistently with
// Auth.Resource). The handler is built once; later calls return it again.
func (s *Server) Handler() http.Handler {
	s.handlerOnce.Do(func() { s.handler = s.buildHandler() })
	return s.handler
}

func (s *Server) buildHandler() http.Handler {
	mux := http.NewServeMux()
	s.mountMetadata(mux)
	mux.Handle(s.opts.HTTP.MCPPath, s.protect(s.endpoint(s.mcp, nil)))
	return httpmw.CORS(s.origins)(mux)
}

// Middleware wraps a host's own MCP endpoint (typically
// [Server.StreamableHTTPHandler] serving a server the host passed to
// [Server.AddTo]) in the stack Handler puts in front of codemode's: CORS,
// the request body limit, the failed-authentication limit and bearer
// authentication (with Options.Auth) or the loopback-only
// Options.Principal, the per-principal request and execution limits, and
// the registry that lets notifications/cancelled outside a session reach
// the call it names. With Auth it also answers the RFC 9728 metadata
// routes under /.well-known/; every other request passes through the
// stack to next, whatever its path. Mount it where the host serves MCP,
// and with Auth at /.well-known/ too:
//
//	mw := cm.Middleware(cm.StreamableHTTPHandler(host, nil))
//	mux.Handle("/mcp", mw)
//	mux.Handle("/.well-known/", mw)
//
// A go-sdk StreamableHTTPHandler of the host's own works behind it too,
// but serves either sessions or stateless requests: with Stateless set,
// clients before protocol revision 2026-07-28 cannot be asked for
// approvals (they read APPROVAL_UNAVAILABLE saying so); without it,
// 2026-07-28 clients are refused. StreamableHTTPHandler serves both.
//
// For the cancellation registry to work the server must have been given
// to AddTo, which installs its half.
func (s *Server) Middleware(next http.Handler) http.Handler {
	mux := http.NewServeMux()
	s.mountMetadata(mux)
	mux.Handle("/", s.protect(next))
	return httpmw.CORS(s.origins)(mux)
}

// mountMetadata serves the OAuth metadata routes on mux, with Auth.
func (s *Server) mountMetadata(mux *http.ServeMux) {
	if a := s.opts.Auth; a != nil {
		// Checked in New, so Mount cannot fail on a fresh mux.
		_ = oauthmeta.Mount(mux, s.prm, a.AuthServer)
	}
}

// protect puts the MCP endpoint's stack (httpmw.Stack) in front of
// endpoint: the body limit, identity (bearer authentication and its
// failure limit, or Principal), the JSON-RPC envelope, the request limit,
// the execution limit and cancellation of requests outside a session.
func (s *Server) protect(endpoint http.Handler) http.Handler {
	o := &s.opts
	keys := s.callerKeys()
	st := httpmw.Stack{
		MaxBodyBytes: o.HTTP.MaxBodyBytes,
		Mark:         markStack,
		Identity:     s.identity(),
		Requests:     s.tel.limited(httpmw.LimiterOr(o.State.RequestLimiter, o.RateLimits.RequestsPerSecond, o.RateLimits.RequestBurst)),
		Executions:   s.tel.limited(httpmw.LimiterOr(o.State.RateLimiter, o.RateLimits.RatePerSecond, o.RateLimits.RateBurst)),
		Calls:        s.cancels,
		Owner:        keys.Owner,
		Principal:    keys.Principal,
		Logger:       s.logger,
	}
	// Executions are what cost: each tools/call of a code tool takes a
	// token, set-up traffic and plain tools take none, unless the host
	// counts its plain tools too.
	if !o.RateLimits.RateLimitPlainTools {
		st.CodeTools = s.codeToolNames()
	}
	if o.State.Cancellations != nil {
		st.Calls = o.State.Cancellations
	}
	return st.Wrap(endpoint)
}

// identity authenticates a request with Auth's bearer tokens behind the
// failed-authentication limit, or gives it Options.Principal (from
// loopback only, unless InsecureRemotePrincipal); nil when there is
// neither (the catalog allows anonymous calls).
func (s *Server) identity() func(http.Handler) http.Handler {
	o := &s.opts
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
		failures := httpmw.FailureCounterOr(o.State.FailureLimiter, o.RateLimits.AuthFailuresPerSecond, o.RateLimits.AuthFailureBurst)
		return httpmw.FailureLimit(failures, bearer, s.clientAddr, s.logger)
	}
	if o.Principal == nil {
		return nil
	}
	p := *o.Principal
	s.logger.Warn("codemode: HTTP authentication is off; every request acts as the configured principal", "subject", p.Subject, "remote", o.InsecureRemotePrincipal)
	return httpmw.AsPrincipal(p, o.InsecureRemotePrincipal)
}

// codeToolNames are the tools that run code: their calls are the
// executions the execution limit counts (with saved.Options.Tools, the
// saved functions' tools too: httpmw.ToolCallCost's prefix pattern).
func (s *Server) codeToolNames() []string {
	names := []string{ToolName}
	if s.opts.ReadOnlyTool {
		names = append(names, ReadOnlyToolName)
	}
	if s.opts.Saved != nil && s.opts.Saved.OffersTools() {
		names = append(names, savedlist.ToolPrefix+"*")
	}
	return names
}

// callerKeys names the caller of a request for the limits, the cancellation
// registry and the sessions.
func (s *Server) callerKeys() httpmw.Keys {
	return httpmw.Keys{ClientAddress: s.opts.HTTP.ClientAddress}
}

// clientAddr names the client behind r for the limits kept per client
// address: Options.HTTP.ClientAddress, or the peer address.
func (s *Server) clientAddr(r *http.Request) string { return s.callerKeys().Client(r) }

// joinCancellation lets a notifications/cancelled POST, which a stateless
// handler serves in a session of its own, cancel a tools/call in flight.
var joinCancellation = httpmw.JoinCancellation

func (s *Server) scopesSupported() []string {
	a := s.opts.Auth
	if len(a.ScopesSupported) > 0 {
		return a.ScopesSupported
	}
	out := slices.Clone(a.Scopes)
	for _, c := range s.cats {
		for _, f := range c.Functions() {
			for _, sc := range f.Scopes {
				if !slices.Contains(out, sc) {
					out = append(out, sc)
				}
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
