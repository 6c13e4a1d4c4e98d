package codemode

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/internal/httpmw"
)

// One endpoint, two ways of serving it. go-sdk's StreamableHTTPHandler
// is either stateful (sessions, any revision before 2026-07-28, and the
// server can send the client requests during a call) or stateless (every
// POST alone, every revision, no affinity). A client on 2025-11-25 can be
// asked for an approval only within a session, a 2026-07-28 client only
// statelessly (a stateful go-sdk handler refuses that revision). So the
// endpoint keeps one handler of each kind over the same *mcp.Server and
// routes each request: one carrying a session id to the stateful handler,
// an initialize that needs a session to the stateful handler (which opens
// it), everything else to the stateless one. The routing reads the
// JSON-RPC envelope httpmw.JSONRPC already read.

// sessionMode says which initialize requests open a session.
type sessionMode int

const (
	// sessionsWhenNeeded: an initialize before 2026-07-28 that declares
	// elicitation or the MCP Apps extension. The default.
	sessionsWhenNeeded sessionMode = iota
	// sessionsAlways: every initialize before 2026-07-28 (Options.HTTP.Stateful).
	sessionsAlways
	// sessionsNever: none (Options.HTTP.Stateless).
	sessionsNever
)

// sessionMode is the mode Options choose.
func (s *Server) sessionMode() sessionMode {
	switch {
	case s.opts.HTTP.Stateless:
		return sessionsNever
	case s.opts.HTTP.Stateful:
		return sessionsAlways
	}
	return sessionsWhenNeeded
}

// routedKey marks the context of a request served by a sessionRouter
// with the endpoint's mode, so an approval that cannot be asked can say
// exactly why (see channelFor).
type routedKey struct{}

// routedMode returns the session mode of the endpoint that served the
// request behind ctx; ok is false for a handler codemode did not build (a
// host's own go-sdk handler behind Middleware).
func routedMode(ctx context.Context) (m sessionMode, ok bool) {
	m, ok = ctx.Value(routedKey{}).(sessionMode)
	return m, ok
}

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

// endpoint builds the routed endpoint for srv.
func (s *Server) endpoint(srv *mcp.Server, opts *mcp.StreamableHTTPOptions) *sessionRouter {
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
	if o.SessionTimeout <= 0 {
		// Sessions a client abandons must not pile up.
		o.SessionTimeout = sessionIdleTimeout
	}
	get := func(*http.Request) *mcp.Server { return srv }
	stateless, stateful := o, o
	stateless.Stateless, stateful.Stateless = true, false
	rt := &sessionRouter{
		s:         s,
		srv:       srv,
		mode:      s.sessionMode(),
		prefix:    s.opts.HTTP.SessionIDPrefix,
		max:       s.opts.HTTP.MaxSessionsPerPrincipal,
		stateless: mcp.NewStreamableHTTPHandler(get, &stateless),
		stateful:  mcp.NewStreamableHTTPHandler(get, &stateful),
		byID:      map[string]*session{},
		held:      map[string]int{},
		now:       time.Now,
	}
	s.routersMu.Lock()
	s.routers = append(s.routers, rt)
	s.routersMu.Unlock()
	return rt
}

// sessionRouter is one endpoint: it routes each request to the stateful
// or the stateless go-sdk handler over the same server, and keeps the
// sessions the stateful one opened: whose they are, and how many each
// principal holds.
type sessionRouter struct {
	s         *Server
	srv       *mcp.Server
	mode      sessionMode
	prefix    string // Options.HTTP.SessionIDPrefix
	max       int    // Options.HTTP.MaxSessionsPerPrincipal
	stateless http.Handler
	stateful  http.Handler
	now       func() time.Time

	mu     sync.Mutex
	byID   map[string]*session // go-sdk's id (without the prefix) → session
	held   map[string]int      // principalKey → open sessions
	closed bool

	misrouted atomic.Bool // a request with another prefix was logged
}

// session is one open session of the stateful handler.
type session struct {
	id    string // go-sdk's, without the prefix
	owner string // cancelKey of the request that opened it: subject and client, or client address
	limit string // principalKey, for the cap
	ss    *mcp.ServerSession
	last  time.Time // the last request that named it began
}

func (rt *sessionRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r = r.WithContext(context.WithValue(r.Context(), routedKey{}, rt.mode))
	if rt.mode == sessionsNever {
		// go-sdk's stateless handler ignores session ids.
		rt.stateless.ServeHTTP(w, r)
		return
	}
	if id := r.Header.Get(httpmw.SessionIDHeader); id != "" {
		rt.serveSession(w, r, id)
		return
	}
	if rt.opens(r) {
		rt.open(w, r)
		return
	}
	rt.stateless.ServeHTTP(w, r)
}

// opens reports whether r is an initialize that opens a session: before
// 2026-07-28 (which go-sdk serves statelessly only), and, unless every
// client gets one, from a client the server may ask during a call
// (elicitation) or whose declared extensions it reads later (MCP Apps).
func (rt *sessionRouter) opens(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	in := httpmw.MessagesOf(r).Initialize
	if in == nil || in.ProtocolVersion == "" || in.ProtocolVersion >= protocolMRTR {
		return false
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v >= protocolMRTR {
		return false
	}
	if rt.mode == sessionsAlways || in.Elicitation {
		return true
	}
	for _, e := range in.Extensions {
		if e == appsExtension {
			return true
		}
	}
	return false
}

// open serves an initialize with the stateful handler, which opens a
// session: its id is recorded with the principal that opened it and
// handed out with this process's prefix.
func (rt *sessionRouter) open(w http.ResponseWriter, r *http.Request) {
	owner, limit := rt.s.cancelKey(r), rt.s.principalKey(r)
	var evicted []*session
	sw := &sessionWriter{ResponseWriter: w, onHeader: func(h http.Header) {
		id := h.Get(httpmw.SessionIDHeader)
		if id == "" {
			return // no session: initialize failed
		}
		evicted = rt.register(id, owner, limit)
		h.Set(httpmw.SessionIDHeader, rt.prefix+id)
	}}
	rt.stateful.ServeHTTP(sw, r)
	for _, e := range evicted {
		rt.s.logger.Info("codemode: closing the session idle longest: its principal opened one more than Options.HTTP.MaxSessionsPerPrincipal", "limit", rt.maxPerPrincipal(), "idle", rt.now().Sub(e.last).Round(time.Second))
		// Close waits for the session's requests in flight (a call may be
		// waiting for the user's answer): not in this request.
		go e.ss.Close()
	}
}

// register records the session go-sdk opened with id and returns the
// sessions of the same principal over the cap, which the caller closes.
func (rt *sessionRouter) register(id, owner, limit string) []*session {
	var ss *mcp.ServerSession
	for x := range rt.srv.Sessions() {
		if x.ID() == id {
			ss = x
			break
		}
	}
	if ss == nil {
		// Unreachable: go-sdk connects the session before it answers.
		rt.s.logger.Error("codemode: a new session is not on its server; requests naming it will get 404")
		return nil
	}
	e := &session{id: id, owner: owner, limit: limit, ss: ss, last: rt.now()}
	rt.mu.Lock()
	if rt.closed {
		rt.mu.Unlock()
		go ss.Close()
		return nil
	}
	rt.byID[id] = e
	rt.held[limit]++
	var evicted []*session
	for rt.max >= 0 && rt.held[limit] > rt.maxPerPrincipal() {
		old := rt.idlest(limit, e)
		if old == nil {
			break
		}
		rt.forgetLocked(old)
		evicted = append(evicted, old)
	}
	rt.mu.Unlock()
	go func() {
		_ = ss.Wait() // closed: by the client, idle, evicted or Close
		rt.mu.Lock()
		rt.forgetLocked(e)
		rt.mu.Unlock()
	}()
	return evicted
}

func (rt *sessionRouter) maxPerPrincipal() int {
	if rt.max == 0 {
		return DefaultMaxSessionsPerPrincipal
	}
	return rt.max
}

// idlest is the session of limit idle longest, other than keep.
func (rt *sessionRouter) idlest(limit string, keep *session) *session {
	var old *session
	for _, e := range rt.byID {
		if e.limit == limit && e != keep && (old == nil || e.last.Before(old.last)) {
			old = e
		}
	}
	return old
}

// forgetLocked drops e, if it is still recorded. rt.mu is held.
func (rt *sessionRouter) forgetLocked(e *session) {
	if rt.byID[e.id] != e {
		return
	}
	delete(rt.byID, e.id)
	if rt.held[e.limit]--; rt.held[e.limit] <= 0 {
		delete(rt.held, e.limit)
	}
}

// serveSession serves a request naming session id: only the principal
// that opened it may use it, and only on the process that holds it.
func (rt *sessionRouter) serveSession(w http.ResponseWriter, r *http.Request, id string) {
	raw, ok := strings.CutPrefix(id, rt.prefix)
	if !ok {
		if !rt.misrouted.Swap(true) {
			rt.s.logger.Warn("codemode: a request named a session this process did not open (another prefix): route each request to the replica its Mcp-Session-Id prefix names (Options.HTTP.SessionIDPrefix); logged once", "prefix", rt.prefix)
		}
		http.Error(w, fmt.Sprintf("session not found: this server's session ids start with %q; a load balancer must send each request of a session to the replica that opened it", rt.prefix), http.StatusNotFound)
		return
	}
	owner := rt.s.cancelKey(r)
	rt.mu.Lock()
	e := rt.byID[raw]
	mine := e != nil && e.owner == owner
	if mine {
		e.last = rt.now()
	}
	rt.mu.Unlock()
	if !mine {
		if e != nil {
			rt.s.logger.Warn("codemode: refused a request naming another principal's session", "principal", owner)
		}
		// The same answer as for an unknown id, so ids cannot be probed.
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	r = r.Clone(r.Context())
	r.Header.Set(httpmw.SessionIDHeader, raw)
	rt.stateful.ServeHTTP(w, r)
}

// close starts closing every session the endpoint holds, and any it
// would open later: each closes once its requests in flight are answered.
func (rt *sessionRouter) close() {
	rt.mu.Lock()
	rt.closed = true
	open := make([]*session, 0, len(rt.byID))
	for _, e := range rt.byID {
		open = append(open, e)
	}
	rt.mu.Unlock()
	for _, e := range open {
		go e.ss.Close()
	}
}

// sessionlessReason says why a request before 2026-07-28 served outside
// a session cannot ask: which endpoint served it, and what would.
func sessionlessReason(ctx context.Context, ip *mcp.InitializeParams) string {
	rev := "revisions before " + protocolMRTR
	if ip != nil && ip.ProtocolVersion != "" {
		rev = "revision " + ip.ProtocolVersion
	}
	need := fmt.Sprintf("on protocol %s the server can send the client a request during a call only within a session (revision %s needs none)", rev, protocolMRTR)
	mode, routed := routedMode(ctx)
	switch {
	case !routed:
		return need + ", and the host serves this endpoint with a stateless handler that opens no session"
	case mode == sessionsNever:
		return need + ", and this server is configured to open no session (Options.HTTP.Stateless)"
	case mode == sessionsAlways:
		return "this request came without a session: " + need + ", and the client did not send back the Mcp-Session-Id the server gave it at initialize"
	}
	return "this request came without a session: " + need + ", and the server opens one at initialize for a client that declares the elicitation capability; this client did not declare it there, or did not send back the Mcp-Session-Id it was given"
}

// checkSessions refuses contradictory session settings.
func (s *Server) checkSessions() error {
	o := &s.opts
	if o.HTTP.Stateful && o.HTTP.Stateless {
		return errors.New("codemode: Options.HTTP.Stateful and Options.HTTP.Stateless are both set: Stateful opens a session for every client before 2026-07-28, Stateless none; leave both off for sessions where clients need them")
	}
	if p := o.HTTP.SessionIDPrefix; len(p) > 32 || strings.IndexFunc(p, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
	}) >= 0 {
		return fmt.Errorf("codemode: Options.HTTP.SessionIDPrefix %q: want at most 32 letters, digits, '.', '_' or '-'", p)
	}
	if o.HTTP.Stateless && o.HTTP.SessionIDPrefix != "" {
		return errors.New("codemode: Options.HTTP.SessionIDPrefix is set but Options.HTTP.Stateless opens no session; remove one")
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
	case s.opts.Approvals.Fallback == ApprovalAllow:
		what = "run without asking (ApprovalOptions.Fallback is ApprovalAllow)"
	case s.opts.Approvals.Page != nil:
		what = "get a link to the approval page"
	default:
		what = "fail with APPROVAL_UNAVAILABLE"
	}
	s.logger.Warn("codemode: functions need the user's approval, but Options.HTTP.Stateless opens no HTTP session, so over HTTP a client on a protocol revision before "+protocolMRTR+" (2025-11-25 and earlier) cannot be asked during a call: its calls that need approval "+what+". Clients on "+protocolMRTR+" and over stdio are asked. Leave Stateless off to open sessions for clients that declare elicitation.",
		"functions", v.approvals.Len())
}

// sessionWriter lets the router read and rewrite the session id go-sdk
// puts on an initialize answer before the headers go out.
type sessionWriter struct {
	http.ResponseWriter
	onHeader func(http.Header)
	wrote    bool
}

func (w *sessionWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		w.onHeader(w.Header())
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Flush flushes the underlying writer, if it can.
func (w *sessionWriter) Flush() {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *sessionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
