package codemode

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

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/declres"
	"github.com/brakinglab/codemode-go/internal/discover"
	"github.com/brakinglab/codemode-go/internal/httpmw"
	"github.com/brakinglab/codemode-go/internal/savedlist"
	"github.com/brakinglab/codemode-go/internal/sessions"
	"github.com/brakinglab/codemode-go/sandbox"
)

// ErrNoFunctions is returned by New for a catalog without functions: the
// tool would have nothing to call.
var ErrNoFunctions = errors.New("codemode: the catalog has no functions")

// Server exposes one or more catalogs to MCP clients through the
// execute_code tool. It is safe for concurrent use.
type Server struct {
	cats      []*catalog.Catalog          // in the order given
	byNS      map[string]*catalog.Catalog // namespace → catalog
	opts      Options                     // defaults applied
	sb        *sandbox.Sandbox
	ownSB     bool
	logger    *slog.Logger
	audit     AuditSink
	tel       *telemetry
	origins   []string
	mcp       *mcp.Server
	prm       *oauthex.ProtectedResourceMetadata // nil without Auth
	approvals *approval.Service
	lists     *savedlist.Lists // Options.Saved's tool lists per principal; nil without

	// What the tools expose, rebuilt when a catalog changes (see Refresh).
	view      atomic.Pointer[view]
	refreshMu sync.Mutex     // serialises refreshes and guards servers
	servers   []*mcp.Server  // where the tools are registered
	viewGen   atomic.Uint64  // numbers the views buildView makes
	discCache discover.Cache // describe and search answers of the current view, per tool

	handlerOnce sync.Once
	handler     http.Handler
	// unwrappedOnce logs once that a request skipped Middleware
	// (explainUnauthenticated).
	unwrappedOnce sync.Once
	cancels       *httpmw.Cancels // the in-process registry, when Options.State.Cancellations is nil
	routersMu     sync.Mutex
	routers       []*sessions.Router // the endpoints built, whose sessions Close closes

	closeOnce sync.Once
	closeErr  error
}

// toolSpec is one code tool: its name, the functions it binds, its
// declarations and its description.
type toolSpec struct {
	v            *view
	name         string
	bound        map[string][]string     // namespace → function names, for the sandbox
	tiers        map[string]catalog.Tier // qualified name → tier
	names        []string                // qualified names, for suggestions
	declarations string
	description  string
	mode         Discovery // DiscoveryFull or DiscoveryIndex, as chosen
	annotations  *mcp.ToolAnnotations
}

// New builds a Server for cat. opts may be nil. It is NewMulti with one
// catalog.
//
// New fails fast on settings that would only show when traffic arrives:
// neither Auth nor Principal ([ErrNoIdentity]), both, Auth settings that
// contradict the verifier's audience or issuer, and, in worker mode, a
// binary that cannot start as a sandbox worker ([ErrWorkerStart]; New
// starts one worker to find out).
func New(cat *catalog.Catalog, opts *Options) (*Server, error) {
	if cat == nil {
		return nil, errors.New("codemode: nil catalog")
	}
	return NewMulti([]*catalog.Catalog{cat}, opts)
}

// NewMulti builds a Server for several catalogs, each bound in scripts as
// its own namespace (await github.listIssues(...), await
// memory.createEntities(...)), so one script can join data across them.
// Everything a single catalog gets, each gets: its tiers, scopes and
// approvals, one audit trail, declarations in the description and as
// codemode://types/<namespace>.d.ts, and codemode.search and
// codemode.describe across all of them with names qualified as
// namespace.function.
//
// A slice rather than an Options field keeps "what is served" apart from
// "how it is served", as in New. Namespaces must differ
// ([ErrDuplicateNamespace]) and may not be "codemode" ([DiscoveryNamespace]).
// Every catalog must have a function. Catalogs may change while served:
// see [Server.Refresh].
func NewMulti(cats []*catalog.Catalog, opts *Options) (*Server, error) {
	byNS, err := checkNamespaces(cats)
	if err != nil {
		return nil, err
	}
	s := &Server{cats: slices.Clone(cats), byNS: byNS, cancels: httpmw.NewCancels()}
	if opts != nil {
		s.opts = *opts
	}
	if err := s.applyDefaults(); err != nil {
		return nil, err
	}
	if err := s.checkIdentity(); err != nil {
		return nil, err
	}
	if err := s.checkSessions(); err != nil {
		return nil, err
	}
	if err := s.setupAuth(); err != nil {
		return nil, err
	}
	if err := s.startSandbox(); err != nil {
		return nil, err
	}
	if s.tel, err = newTelemetry(s.opts.Observer, s.sb); err != nil {
		s.Close()
		return nil, fmt.Errorf("codemode: Observer: %w", err)
	}
	s.audit = s.tel.observe(s.audit)
	if pg := s.opts.Approvals.Page; pg != nil && pg.SourceOf == nil {
		// The page's limit is per client address like the others: a
		// copy, so the caller's approval.Page is left as it was.
		cp := *pg
		cp.SourceOf = s.clientAddr
		s.opts.Approvals.Page = &cp
	}
	if s.approvals, err = approval.New(s.opts.Approvals, approval.Config{Logger: s.logger}); err != nil {
		s.Close()
		return nil, fmt.Errorf("codemode: %w", err)
	}
	v, err := s.buildView(true)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.view.Store(v)
	s.warnCannotAsk(v)
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: s.opts.Name, Title: s.opts.Title, Version: s.opts.Version}, s.serverOptions())
	s.mcp.AddReceivingMiddleware(joinCancellation)
	s.startSaved()
	s.AddTo(s.mcp)
	return s, nil
}

// namespaces lists the served namespaces in order.
func (s *Server) namespaces() []string {
	out := make([]string, len(s.cats))
	for i, c := range s.cats {
		out[i] = c.Namespace()
	}
	return out
}

// serverOptions are the go-sdk options of New's server: the host's
// Options.ServerOptions with codemode's instructions, logger and
// capabilities where the host left them empty.
func (s *Server) serverOptions() *mcp.ServerOptions {
	so := &mcp.ServerOptions{}
	if s.opts.ServerOptions != nil {
		*so = *s.opts.ServerOptions
	}
	if so.Instructions == "" {
		so.Instructions = s.opts.Instructions
	}
	if so.Instructions == "" {
		so.Instructions = fmt.Sprintf("Use the %s tool to run TypeScript against the %s API; its description lists every function.", ToolName, strings.Join(s.namespaces(), ", "))
	}
	if so.Logger == nil {
		so.Logger = sdkLogger(s.logger)
	}
	if so.Capabilities == nil {
		// No logging capability: logging notifications are deprecated in
		// 2026-07-28 and the tool returns its logs in its result.
		so.Capabilities = &mcp.ServerCapabilities{}
	}
	return so
}

// MCPServer returns the go-sdk server New built, with the tools and the
// declarations resource added. A host may add its own tools, prompts and
// resources to it.
func (s *Server) MCPServer() *mcp.Server { return s.mcp }

// Declarations returns the TypeScript declarations of every function, the
// text the tool description ends with.
func (s *Server) Declarations() string { return s.current().all.declarations }

// ToolDescription returns the execute_code tool description.
func (s *Server) ToolDescription() string { return s.current().all.description }

// AddTo adds execute_code (and execute_readonly_code when enabled), the
// declarations resource codemode://types/<namespace>.d.ts of each catalog
// and the per-function resource templates to srv, so a host can serve
// them from an MCP server it built itself. New already did this for
// MCPServer(). srv is kept up to date by [Server.Refresh].
//
// Calls over srv act for the principal in the request context (bearer
// authentication, ServeStdio), else for Options.Principal. A request that
// arrives over HTTP gets Options.Principal only through [Server.Middleware]
// or [Server.Handler], which also refuse non-loopback peers: wrap the
// host's own HTTP handler with Middleware. Without it (and without an
// authentication of the host's own that puts a principal in the context
// or go-sdk's token info), each host call of such a request fails with
// code unauthenticated and a message saying that the handler serving srv
// is not wrapped in Middleware, and the server logs that once.
func (s *Server) AddTo(srv *mcp.Server) {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	if !slices.Contains(s.servers, srv) {
		s.servers = append(s.servers, srv)
		if srv != s.mcp {
			srv.AddReceivingMiddleware(joinCancellation)
		}
		srv.AddReceivingMiddleware(s.refreshing, appsMeta)
		addChartView(srv)
		s.lists.Add(srv)
	}
	s.register(srv, s.view.Load(), nil)
}

// refreshing rebuilds the view before serving a request if a catalog
// changed, so a client that lists tools or resources sees the new ones.
func (s *Server) refreshing(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		s.current()
		return next(ctx, method, req)
	}
}

// register adds v's tools and resources to srv, removing what old served
// and v does not.
func (s *Server) register(srv *mcp.Server, v, old *view) {
	s.addTool(srv, &v.all)
	if v.readOnly.name != "" {
		s.addTool(srv, &v.readOnly)
	} else if old != nil && old.readOnly.name != "" {
		srv.RemoveTools(ReadOnlyToolName)
	}
	nss, groups := v.byNamespace(v.fns)
	for _, ns := range nss {
		decls, err := s.declarations(v, ns, groups[ns])
		if err != nil {
			// Built once already for the description: unreachable.
			s.logger.Error("codemode: declarations", "namespace", ns, "err", err)
			continue
		}
		declres.Add(srv, s.namespaceResources(ns, decls))
	}
	if old == nil {
		return
	}
	s.lists.Everyone()
	for _, ns := range old.namespaces {
		if !slices.Contains(v.namespaces, ns) {
			// A catalog that lost every function: nothing to declare.
			declres.Remove(srv, ns)
		}
	}
}

// Close starts closing the Streamable HTTP sessions of the endpoints the
// server built (Handler, StreamableHTTPHandler; each session closes once
// its requests in flight are answered) and releases the sandbox's worker
// processes (unless the sandbox came from Options.Sandbox.Shared). Executions
// still running finish first. It is safe to call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.routersMu.Lock()
		routers := s.routers
		s.routersMu.Unlock()
		for _, rt := range routers {
			rt.Close()
		}
		s.tel.close()
		s.lists.Close()
		if s.ownSB && s.sb != nil {
			s.closeErr = s.sb.Close()
		}
	})
	return s.closeErr
}
