// Package sessions is one Streamable HTTP endpoint that serves both
// sessions and stateless requests over the same *mcp.Server.
//
// go-sdk's StreamableHTTPHandler is either stateful (sessions, any
// revision before 2026-07-28, and the server can send the client requests
// during a call) or stateless (every POST alone, every revision, no
// affinity). A client on 2025-11-25 can be asked for an approval only
// within a session, a 2026-07-28 client only statelessly (a stateful
// go-sdk handler refuses that revision). So a [Router] keeps one handler
// of each kind and routes each request: one carrying a session id to the
// stateful handler, an initialize that needs a session (see [Mode]) to
// the stateful handler, which opens it, everything else to the stateless
// one. The routing reads the JSON-RPC envelope httpmw.JSONRPC already
// read, so the router must sit behind it.
//
// The router also keeps the sessions the stateful handler opened: each
// is bound to the owner that opened it (a request of anyone else naming
// it gets the same 404 as an unknown id), handed out with a prefix that
// names this process (so a load balancer can route on it), capped per
// principal (the one idle longest is closed), and closed by [Router.Close].
// [Reason] says why a request served outside a session cannot be asked.
package sessions

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/internal/httpmw"
)

// Sessionless is the first protocol revision that needs no session for
// the server to ask the client during a call (input-required results);
// go-sdk serves it statelessly only. It is the revision package approval
// asks on with input-required results.
const Sessionless = approval.ProtocolMRTR

// Mode says which initialize requests open a session.
type Mode int

const (
	// WhenNeeded opens a session for an initialize before 2026-07-28 that
	// declares elicitation or one of Config.Extensions. The default.
	WhenNeeded Mode = iota
	// Always opens one for every initialize before 2026-07-28
	// (codemode's Options.HTTP.Stateful).
	Always
	// Never opens none (Options.HTTP.Stateless).
	Never
)

// ModeFor is the mode of a server that opens a session for every client
// that may (stateful), for none (stateless), or where clients need one.
func ModeFor(stateful, stateless bool) Mode {
	switch {
	case stateless:
		return Never
	case stateful:
		return Always
	}
	return WhenNeeded
}

// IdleTimeout closes a session after this long without a request
// (go-sdk's timer does not run while a POST of the session is being
// served, so a call waiting for the user's answer keeps it).
const IdleTimeout = 30 * time.Minute

// Config is what a Router needs.
type Config struct {
	// Server is the MCP server both handlers serve.
	Server *mcp.Server
	// Options configures both go-sdk handlers; its Stateless field is
	// ignored, and a zero SessionTimeout means IdleTimeout: sessions a
	// client abandons must not pile up.
	Options mcp.StreamableHTTPOptions
	// Mode says which initialize requests open a session.
	Mode Mode
	// Prefix starts every session id handed out (at most 32 letters,
	// digits, '.', '_' or '-'; see Check).
	Prefix string
	// MaxPerPrincipal caps the sessions one principal holds; negative
	// means no cap. It must not be zero.
	MaxPerPrincipal int
	// Extensions are the MCP extensions whose declaration at initialize
	// opens a session under WhenNeeded (MCP Apps: the server reads the
	// client's extensions after initialize).
	Extensions []string
	// Owner keys whose a session is: only requests with the same key may
	// use it.
	Owner func(*http.Request) string
	// Principal keys the cap: the sessions of one principal.
	Principal func(*http.Request) string
	// Logger receives refusals and evictions.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// routedKey marks the context of a request served by a Router with the
// endpoint's mode, so an approval that cannot be asked can say exactly
// why (see Reason).
type routedKey struct{}

// ModeOf returns the session mode of the endpoint that served the
// request behind ctx; ok is false for a handler that is not a Router (a
// host's own go-sdk handler).
func ModeOf(ctx context.Context) (m Mode, ok bool) {
	m, ok = ctx.Value(routedKey{}).(Mode)
	return m, ok
}

// New builds the endpoint cfg describes.
func New(cfg Config) *Router {
	get := func(*http.Request) *mcp.Server { return cfg.Server }
	if cfg.Options.SessionTimeout <= 0 {
		cfg.Options.SessionTimeout = IdleTimeout
	}
	stateless, stateful := cfg.Options, cfg.Options
	stateless.Stateless, stateful.Stateless = true, false
	rt := &Router{
		srv:       cfg.Server,
		mode:      cfg.Mode,
		prefix:    cfg.Prefix,
		max:       cfg.MaxPerPrincipal,
		apps:      cfg.Extensions,
		owner:     cfg.Owner,
		principal: cfg.Principal,
		logger:    cfg.Logger,
		stateless: mcp.NewStreamableHTTPHandler(get, &stateless),
		stateful:  mcp.NewStreamableHTTPHandler(get, &stateful),
		byID:      map[string]*session{},
		held:      map[string]int{},
		now:       cfg.Now,
	}
	if rt.now == nil {
		rt.now = time.Now
	}
	if rt.logger == nil {
		rt.logger = slog.Default()
	}
	return rt
}

// Router is one endpoint: it routes each request to the stateful or the
// stateless go-sdk handler over the same server, and keeps the sessions
// the stateful one opened: whose they are, and how many each principal
// holds.
type Router struct {
	srv       *mcp.Server
	mode      Mode
	prefix    string // Config.Prefix
	max       int    // Config.MaxPerPrincipal
	apps      []string
	owner     func(*http.Request) string
	principal func(*http.Request) string
	logger    *slog.Logger
	stateless http.Handler
	stateful  http.Handler
	now       func() time.Time

	mu     sync.Mutex
	byID   map[string]*session // go-sdk's id (without the prefix) → session
	held   map[string]int      // Config.Principal → open sessions
	closed bool

	misrouted atomic.Bool // a request with another prefix was logged
}

// session is one open session of the stateful handler.
type session struct {
	id    string // go-sdk's, without the prefix
	owner string // Config.Owner of the request that opened it
	limit string // Config.Principal of it, for the cap
	ss    *mcp.ServerSession
	last  time.Time // the last request that named it began
}

// ServeHTTP routes r to the stateful or the stateless handler.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r = r.WithContext(context.WithValue(r.Context(), routedKey{}, rt.mode))
	if rt.mode == Never {
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
func (rt *Router) opens(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	in := httpmw.MessagesOf(r).Initialize
	if in == nil || in.ProtocolVersion == "" || in.ProtocolVersion >= Sessionless {
		return false
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v >= Sessionless {
		return false
	}
	if rt.mode == Always || in.Elicitation {
		return true
	}
	for _, e := range in.Extensions {
		if slices.Contains(rt.apps, e) {
			return true
		}
	}
	return false
}

// open serves an initialize with the stateful handler, which opens a
// session: its id is recorded with the principal that opened it and
// handed out with this process's prefix.
func (rt *Router) open(w http.ResponseWriter, r *http.Request) {
	owner, limit := rt.owner(r), rt.principal(r)
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
		rt.logger.Info("codemode: closing the session idle longest: its principal opened one more than Options.HTTP.MaxSessionsPerPrincipal", "limit", rt.max, "idle", rt.now().Sub(e.last).Round(time.Second))
		// Close waits for the session's requests in flight (a call may be
		// waiting for the user's answer): not in this request.
		go e.ss.Close()
	}
}

// register records the session go-sdk opened with id and returns the
// sessions of the same principal over the cap, which the caller closes.
func (rt *Router) register(id, owner, limit string) []*session {
	var ss *mcp.ServerSession
	for x := range rt.srv.Sessions() {
		if x.ID() == id {
			ss = x
			break
		}
	}
	if ss == nil {
		// Unreachable: go-sdk connects the session before it answers.
		rt.logger.Error("codemode: a new session is not on its server; requests naming it will get 404")
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
	for rt.max >= 0 && rt.held[limit] > rt.max {
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

// idlest is the session of limit idle longest, other than keep.
func (rt *Router) idlest(limit string, keep *session) *session {
	var old *session
	for _, e := range rt.byID {
		if e.limit == limit && e != keep && (old == nil || e.last.Before(old.last)) {
			old = e
		}
	}
	return old
}

// forgetLocked drops e, if it is still recorded. rt.mu is held.
func (rt *Router) forgetLocked(e *session) {
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
func (rt *Router) serveSession(w http.ResponseWriter, r *http.Request, id string) {
	raw, ok := strings.CutPrefix(id, rt.prefix)
	if !ok {
		if !rt.misrouted.Swap(true) {
			rt.logger.Warn("codemode: a request named a session this process did not open (another prefix): route each request to the replica its Mcp-Session-Id prefix names (Options.HTTP.SessionIDPrefix); logged once", "prefix", rt.prefix)
		}
		http.Error(w, fmt.Sprintf("session not found: this server's session ids start with %q; a load balancer must send each request of a session to the replica that opened it", rt.prefix), http.StatusNotFound)
		return
	}
	owner := rt.owner(r)
	rt.mu.Lock()
	e := rt.byID[raw]
	mine := e != nil && e.owner == owner
	if mine {
		e.last = rt.now()
	}
	rt.mu.Unlock()
	if !mine {
		if e != nil {
			rt.logger.Warn("codemode: refused a request naming another principal's session", "principal", owner)
		}
		// The same answer as for an unknown id, so ids cannot be probed.
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	r = r.Clone(r.Context())
	r.Header.Set(httpmw.SessionIDHeader, raw)
	rt.stateful.ServeHTTP(w, r)
}

// Close starts closing every session the endpoint holds, and any it
// would open later: each closes once its requests in flight are answered.
func (rt *Router) Close() {
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

// Len returns how many sessions the endpoint holds.
func (rt *Router) Len() int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return len(rt.byID)
}

// Reason says why a request before 2026-07-28 served outside a session
// cannot be asked during a call: which endpoint served it (from ModeOf),
// and what would. ip is the client's initialize, when known.
func Reason(ctx context.Context, ip *mcp.InitializeParams) string {
	rev := "revisions before " + Sessionless
	if ip != nil && ip.ProtocolVersion != "" {
		rev = "revision " + ip.ProtocolVersion
	}
	need := fmt.Sprintf("on protocol %s the server can send the client a request during a call only within a session (revision %s needs none)", rev, Sessionless)
	mode, routed := ModeOf(ctx)
	switch {
	case !routed:
		return need + ", and the host serves this endpoint with a stateless handler that opens no session"
	case mode == Never:
		return need + ", and this server is configured to open no session (Options.HTTP.Stateless)"
	case mode == Always:
		return "this request came without a session: " + need + ", and the client did not send back the Mcp-Session-Id the server gave it at initialize"
	}
	return "this request came without a session: " + need + ", and the server opens one at initialize for a client that declares the elicitation capability; this client did not declare it there, or did not send back the Mcp-Session-Id it was given"
}

// Check refuses contradictory settings of codemode's Options.HTTP:
// Stateful with Stateless, a SessionIDPrefix other than at most 32
// letters, digits, '.', '_' or '-', and a prefix where no session opens.
func Check(stateful, stateless bool, prefix string) error {
	if stateful && stateless {
		return errors.New("Options.HTTP.Stateful and Options.HTTP.Stateless are both set: Stateful opens a session for every client before 2026-07-28, Stateless none; leave both off for sessions where clients need them")
	}
	if len(prefix) > 32 || strings.IndexFunc(prefix, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
	}) >= 0 {
		return fmt.Errorf("Options.HTTP.SessionIDPrefix %q: want at most 32 letters, digits, '.', '_' or '-'", prefix)
	}
	if stateless && prefix != "" {
		return errors.New("Options.HTTP.SessionIDPrefix is set but Options.HTTP.Stateless opens no session; remove one")
	}
	return nil
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
