// Package savedlist shows each connected principal the tool list their
// saved functions make (package saved), over go-sdk servers whose tool
// list is shared by every session. codemode wires it in when
// Options.Saved is set; it owns three seams of go-sdk's middleware:
//
//   - Receiving: every request records its session's principal (a
//     session's principal does not change: the first known one stays);
//     tools/list answers are rewritten for the requester, the code tools'
//     descriptions naming their saved functions (Config.Index) and, with
//     Config.Tools, each saved function added as a plain tool; tools/call
//     of such a tool is retargeted at the code tool (Config.Retarget), so
//     it runs through the one execution path.
//   - Changed: a save or removal, on this replica or (with a store that
//     reports them, saved.Library.WatchAll) on another, bumps the owner's
//     generation (a published function's, everyone's) and re-registers a
//     tool on every server (Config.Trigger), which makes go-sdk debounce one
//     notifications/tools/list_changed to every session, legacy sessions
//     on their channel and 2026-07-28 ones on their subscriptions/listen
//     stream, both through the sending middleware.
//   - Sending: a notifications/tools/list_changed reaches a session only
//     when a change since the last one it got concerns its principal.
//
// go-sdk v1.8.0 has no per-session notification and does not say which
// change a notification is for. So the filter applies only while a
// change made here is pending (armWindow after the last one); outside it
// every notification passes. A host's own tool change within that window
// reaches only the sessions a saved-function change concerns; codemode's
// own (Refresh) calls Everyone, which concerns every session.
// Re-registering a tool does not disturb calls in flight: go-sdk looks a
// tool up once, when the call begins.
package savedlist

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/saved"
)

// armWindow is how long after a change the sending filter applies. go-sdk
// sends 10 ms after the last change; the margin covers a loaded machine.
const armWindow = 2 * time.Second

// Method names.
const (
	toolsList        = "tools/list"
	toolsCall        = "tools/call"
	toolsListChanged = "notifications/tools/list_changed"
)

// Config is what a Lists needs from its server.
type Config struct {
	// Principal returns the principal a tools/call request acts for, and
	// whether there is one; a session's is that of its requests.
	Principal func(ctx context.Context, req *mcp.CallToolRequest) (catalog.Principal, bool)
	// CodeTool is the tool that runs code (execute_code): its description
	// gets the index, and the saved functions' plain tools run through it.
	CodeTool string
	// ReadOnlyTool is the read-only code tool, whose description gets the
	// index of READ-ONLY saved functions (when it is served).
	ReadOnlyTool string
	// Trigger re-registers a tool on srv, so that go-sdk notifies.
	Trigger func(srv *mcp.Server)
	// OnChange, if set, is called for each change this server's Library
	// makes (codemode audits it); the sessions are told of every
	// replica's changes (saved.Library.WatchAll).
	OnChange func(ctx context.Context, c saved.Change)
	// Logger receives failures; nil means slog.Default().
	Logger *slog.Logger
}

// Lists keeps the sessions' principals and the generations of changes.
// It is safe for concurrent use.
type Lists struct {
	lib     *saved.Library
	cfg     Config
	unwatch func()
	// kick wakes the goroutine that re-registers the tools: Changed may be
	// called on a store's listener (pgstate's, which also delivers
	// cancellations), and re-registering waits for a catalog Refresh.
	kick chan struct{}
	done chan struct{}

	mu       sync.Mutex
	seq      uint64            // the last change's number
	subjects map[string]uint64 // subject → the last change that concerned them
	everyone uint64            // the last change that concerned every session
	armed    time.Time         // the filter applies until then
	sessions map[*mcp.ServerSession]*session
	pruneAt  int // prune the sessions when there are this many
	servers  []*mcp.Server
}

// session is one session as Lists knows it.
type session struct {
	subject string
	known   bool   // subject came from a request
	seen    uint64 // the change it was last told of, or connected at
}

// New returns a Lists of lib's functions, which watches lib until Close.
func New(lib *saved.Library, cfg Config) *Lists {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	l := &Lists{lib: lib, cfg: cfg, subjects: map[string]uint64{}, sessions: map[*mcp.ServerSession]*session{}, pruneAt: 64,
		kick: make(chan struct{}, 1), done: make(chan struct{})}
	go l.trigger()
	var unaudit func()
	if cfg.OnChange != nil {
		unaudit = lib.Watch(cfg.OnChange)
	}
	unnotify := lib.WatchAll(l.Changed)
	l.unwatch = sync.OnceFunc(func() {
		unnotify()
		if unaudit != nil {
			unaudit()
		}
		close(l.done)
	})
	return l
}

// trigger re-registers the tools on every server after each kick (kicks
// that come while it works coalesce: one re-registration covers them).
func (l *Lists) trigger() {
	for {
		select {
		case <-l.done:
			return
		case <-l.kick:
		}
		l.mu.Lock()
		servers := slices.Clone(l.servers)
		l.mu.Unlock()
		for _, srv := range servers {
			l.cfg.Trigger(srv)
		}
	}
}

// Close stops watching the library. A nil Lists does nothing, here and in
// Add and Everyone.
func (l *Lists) Close() {
	if l != nil {
		l.unwatch()
	}
}

// Add installs the middlewares on srv and keeps it for Changed.
func (l *Lists) Add(srv *mcp.Server) {
	if l == nil {
		return
	}
	l.mu.Lock()
	if slices.Contains(l.servers, srv) {
		l.mu.Unlock()
		return
	}
	l.servers = append(l.servers, srv)
	l.mu.Unlock()
	srv.AddReceivingMiddleware(l.receiving)
	srv.AddSendingMiddleware(l.sending)
}

// Changed tells the sessions of owner (everyone: every session) that
// their tool list or declarations changed.
func (l *Lists) Changed(owner string, everyone bool) {
	l.mu.Lock()
	l.seq++
	if everyone {
		l.everyone = l.seq
	} else {
		l.subjects[owner] = l.seq
	}
	l.armed = time.Now().Add(armWindow)
	l.mu.Unlock()
	select {
	case l.kick <- struct{}{}:
	default: // a kick is pending: its re-registration will cover this change
	}
}

// Everyone records a change of the tools themselves, which every session
// is told of (without triggering: the change notifies).
func (l *Lists) Everyone() {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.seq++
	l.everyone = l.seq
	l.mu.Unlock()
}

// sending drops a tools/list_changed for a session no change concerns.
func (l *Lists) sending(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == toolsListChanged {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && !l.concerned(ss) {
				return nil, nil
			}
		}
		return next(ctx, method, req)
	}
}

// concerned reports whether ss gets a tools/list_changed now, and if so
// marks it told.
func (l *Lists) concerned(ss *mcp.ServerSession) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.sessions[ss]
	if e == nil {
		return true // never seen: tell it
	}
	if time.Now().After(l.armed) || !e.known || max(l.everyone, l.subjects[e.subject]) > e.seen {
		e.seen = l.seq
		return true
	}
	return false
}

// receiving records the session's principal and rewrites tools/list and
// tools/call.
func (l *Lists) receiving(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		p, known := l.cfg.Principal(ctx, &mcp.CallToolRequest{Extra: req.GetExtra()})
		subject := p.Subject
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
			l.record(ss, subject, known)
		}
		switch method {
		case toolsCall:
			if r, ok := req.(*mcp.CallToolRequest); ok && l.lib.OffersTools() && r.Params != nil && l.callable(ctx, subject, r.Params.Name) {
				if tool, args, ok := Retarget(r.Params.Name, r.Params.Arguments, l.cfg.CodeTool); ok {
					p := *r.Params
					p.Name, p.Arguments = tool, args
					r.Params = &p
				}
			}
		case toolsList:
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				res = l.rewrite(ctx, subject, lr)
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// callable reports whether the tool name is one of subject's saved
// functions; any other (another's, a missing one) stays an unknown tool.
func (l *Lists) callable(ctx context.Context, subject, name string) bool {
	fn, ok := strings.CutPrefix(name, ToolPrefix)
	if !ok {
		return false
	}
	f, err := l.lib.Get(ctx, subject, fn, 0)
	if err != nil && catalog.CodeOf(err) != catalog.CodeNotFound {
		l.cfg.Logger.Error("codemode: looking a saved function up failed", "err", err)
	}
	return err == nil && f != nil
}

// record keeps ss's principal.
func (l *Lists) record(ss *mcp.ServerSession, subject string, known bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.sessions[ss]
	if e == nil {
		if len(l.sessions) >= l.pruneAt {
			l.pruneLocked()
		}
		l.sessions[ss] = &session{subject: subject, known: known, seen: l.seq}
		return
	}
	if !e.known && known {
		e.subject, e.known = subject, true
	}
}

// pruneLocked forgets the sessions no server holds any more (stateless
// HTTP requests each have one).
func (l *Lists) pruneLocked() {
	live := map[*mcp.ServerSession]bool{}
	for _, srv := range l.servers {
		for ss := range srv.Sessions() {
			live[ss] = true
		}
	}
	for ss := range l.sessions {
		if !live[ss] {
			delete(l.sessions, ss)
		}
	}
	l.pruneAt = 2*len(l.sessions) + 64
}

// rewrite returns res as subject sees it; the tools go-sdk holds are
// copied, never changed. A store that fails leaves res as it was.
func (l *Lists) rewrite(ctx context.Context, subject string, res *mcp.ListToolsResult) *mcp.ListToolsResult {
	fns, err := l.lib.List(ctx, subject)
	if err != nil {
		l.cfg.Logger.Error("codemode: listing saved functions failed", "err", err)
		return res
	}
	out := *res
	out.CacheScope = "private" // one principal's list: no shared cache may serve it to another
	out.Tools = make([]*mcp.Tool, 0, len(res.Tools))
	for _, t := range res.Tools {
		if t.Name == l.cfg.CodeTool || t.Name == l.cfg.ReadOnlyTool {
			if text := Index(fns, t.Name != l.cfg.CodeTool); text != "" {
				cp := *t
				cp.Description = strings.TrimRight(cp.Description, "\n") + "\n\n" + text
				t = &cp
			}
		}
		out.Tools = append(out.Tools, t)
	}
	if res.NextCursor == "" && l.lib.OffersTools() {
		out.Tools = append(out.Tools, Tools(fns, l.cfg.CodeTool)...)
	}
	return &out
}
