package codemode

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/internal/sessions"
)

// StreamableHTTPHandler returns a Streamable HTTP endpoint for srv, a
// server the host built and gave to [Server.AddTo], that serves sessions
// and stateless requests as [Server.Handler] does: an initialize before
// protocol revision 2026-07-28 that declares the elicitation capability
// or the MCP Apps extension opens a session (with Options.HTTP.Stateful every
// initialize before 2026-07-28 does, with Options.HTTP.Stateless none does),
// requests carrying its
// Mcp-Session-Id are served in it, and everything else, 2026-07-28
// included, statelessly. Sessions follow the same rules as Handler's: bound
// to the principal that opened them, prefixed with Options.HTTP.SessionIDPrefix,
// capped by Options.HTTP.MaxSessionsPerPrincipal, closed after 30 minutes idle
// and by [Server.Close].
//
// opts configures both go-sdk handlers it builds over srv; its Stateless
// field is ignored, and a zero SessionTimeout means 30 minutes. A nil opts
// means codemode's own settings: Options.HTTP.MaxBodyBytes,
// Options.HTTP.DisableLocalhostProtection, Logger, and request cancellation
// propagated on 2026-07-28. Put [Server.Middleware] in front, which
// authenticates the requests the sessions are bound to:
//
//	mux.Handle("/mcp", cm.Middleware(cm.StreamableHTTPHandler(host, nil)))
//
// Each call builds a new endpoint with sessions of its own: build it once.
func (s *Server) StreamableHTTPHandler(srv *mcp.Server, opts *mcp.StreamableHTTPOptions) http.Handler {
	return s.endpoint(srv, opts)
}

// endpoint builds the routed endpoint for srv (internal/sessions), whose
// sessions Close closes.
func (s *Server) endpoint(srv *mcp.Server, opts *mcp.StreamableHTTPOptions) *sessions.Router {
	var o mcp.StreamableHTTPOptions
	if opts != nil {
		o = *opts
	} else {
		o = mcp.StreamableHTTPOptions{
			DisableLocalhostProtection:   s.opts.HTTP.DisableLocalhostProtection,
			MaxRequestBodyBytes:          s.opts.HTTP.MaxBodyBytes,
			PropagateRequestCancellation: true,
		}
	}
	if o.Logger == nil {
		o.Logger = sdkLogger(s.logger)
	}
	max := s.opts.HTTP.MaxSessionsPerPrincipal
	if max == 0 {
		max = DefaultMaxSessionsPerPrincipal
	}
	rt := sessions.New(sessions.Config{
		Server:          srv,
		Options:         o,
		Mode:            sessions.ModeFor(s.opts.HTTP.Stateful, s.opts.HTTP.Stateless),
		Prefix:          s.opts.HTTP.SessionIDPrefix,
		MaxPerPrincipal: max,
		Extensions:      []string{appsExtension},
		Owner:           s.callerKeys().Owner,
		Principal:       s.callerKeys().Principal,
		Logger:          s.logger,
	})
	s.routersMu.Lock()
	s.routers = append(s.routers, rt)
	s.routersMu.Unlock()
	return rt
}

// sessionlessReason says why a request before 2026-07-28 served outside
// a session cannot ask: which endpoint served it, and what would.
func sessionlessReason(ctx context.Context, ip *mcp.InitializeParams) string {
	return sessions.Reason(ctx, ip)
}

// checkSessions refuses contradictory session settings.
func (s *Server) checkSessions() error {
	h := &s.opts.HTTP
	if err := sessions.Check(h.Stateful, h.Stateless, h.SessionIDPrefix); err != nil {
		return fmt.Errorf("codemode: %w", err)
	}
	return nil
}

// warnCannotAsk logs once, at start-up, when functions need the user's
// approval but the HTTP endpoint opens no session, so clients before
// 2026-07-28 cannot be asked there.
func (s *Server) warnCannotAsk(v *view) {
	if v.approvals == nil || !s.opts.HTTP.Stateless {
		return
	}
	var what string
	switch {
	case s.opts.Approvals.Fallback == approval.Allow:
		what = "run without asking (approval.Options.Fallback is approval.Allow)"
	case s.opts.Approvals.Page != nil:
		what = "get a link to the approval page"
	default:
		what = "fail with APPROVAL_UNAVAILABLE"
	}
	s.logger.Warn("codemode: functions need the user's approval, but Options.HTTP.Stateless opens no HTTP session, so over HTTP a client on a protocol revision before "+approval.ProtocolMRTR+" (2025-11-25 and earlier) cannot be asked during a call: its calls that need approval "+what+". Clients on "+approval.ProtocolMRTR+" and over stdio are asked. Leave Stateless off to open sessions for clients that declare elicitation.",
		"functions", v.approvals.Len())
}
