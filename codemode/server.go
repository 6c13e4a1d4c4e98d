package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/httpmw"
	"github.com/brakinglab/codemode-go/oauthmeta"
	"github.com/brakinglab/codemode-go/sandbox"
)

// ErrNoFunctions is returned by New for a catalog without functions: the
// tool would have nothing to call.
var ErrNoFunctions = errors.New("codemode: the catalog has no functions")

// Server exposes a catalog to MCP clients through the execute_code tool.
// It is safe for concurrent use.
type Server struct {
	cat     *catalog.Catalog
	opts    Options // defaults applied
	sb      *sandbox.Sandbox
	ownSB   bool
	logger  *slog.Logger
	audit   AuditSink
	tel     *telemetry
	origins []string
	mcp     *mcp.Server
	prm     *oauthex.ProtectedResourceMetadata // nil without Auth

	// What the tools expose, computed once: a catalog registers functions
	// before it is served.
	all, readOnly toolSpec
	disc          *discovery // search index over the catalog's functions

	handlerOnce sync.Once
	handler     http.Handler
	cancels     *httpmw.Cancels // the in-process registry, when Options.Cancellations is nil
	approvals   *approver       // nil: no function needs approval

	closeOnce sync.Once
	closeErr  error
}

// toolSpec is one code tool: its name, the functions it binds, its
// declarations and its description.
type toolSpec struct {
	name         string
	names        []string
	tiers        map[string]catalog.Tier
	declarations string
	description  string
	mode         Discovery // DiscoveryFull or DiscoveryIndex, as chosen
	annotations  *mcp.ToolAnnotations
}

// New builds a Server for cat. opts may be nil. The catalog's functions
// must all be registered before New: the declarations and tool description
// are generated here, once.
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
	if cat.Namespace() == DiscoveryNamespace {
		return nil, fmt.Errorf("codemode: the namespace %q is reserved for discovery (codemode.search, codemode.describe); choose another", DiscoveryNamespace)
	}
	s := &Server{cat: cat, cancels: httpmw.NewCancels()}
	if opts != nil {
		s.opts = *opts
	}
	o := &s.opts
	if o.Discovery < DiscoveryAuto || o.Discovery > DiscoveryIndex {
		return nil, fmt.Errorf("codemode: unknown Discovery %d", int(o.Discovery))
	}
	if o.DiscoveryBudget <= 0 {
		o.DiscoveryBudget = DefaultDiscoveryBudget
	}
	if o.Name == "" {
		o.Name = cat.Namespace()
	}
	if o.Version == "" {
		o.Version = "0.0.0"
	}
	if o.MCPPath == "" {
		o.MCPPath = DefaultMCPPath
	}
	if !strings.HasPrefix(o.MCPPath, "/") || strings.ContainsAny(o.MCPPath, " {}") || strings.HasPrefix(o.MCPPath, "/.well-known/") {
		return nil, fmt.Errorf("codemode: MCPPath %q: want a plain absolute path such as /mcp", o.MCPPath)
	}
	if o.RateLimiter != nil && o.RatePerSecond < 0 {
		return nil, errors.New("codemode: RateLimiter is set but a negative RatePerSecond turns the rate limit off; keep one of the two")
	}
	if o.FailureLimiter != nil && o.AuthFailuresPerSecond < 0 {
		return nil, errors.New("codemode: FailureLimiter is set but a negative AuthFailuresPerSecond turns the failed-authentication limit off; keep one of the two")
	}
	if o.RatePerSecond == 0 {
		o.RatePerSecond = DefaultRatePerSec
	}
	if o.RateBurst <= 0 {
		o.RateBurst = DefaultRateBurst
	}
	if o.AuthFailuresPerSecond == 0 {
		o.AuthFailuresPerSecond = DefaultAuthFailuresPerSec
	}
	if o.AuthFailureBurst <= 0 {
		o.AuthFailureBurst = DefaultAuthFailureBurst
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	s.logger = o.Logger
	if s.logger == nil {
		s.logger = slog.Default()
	}
	if f, ok := o.Audit.(AuditFunc); ok && f == nil {
		return nil, errors.New("codemode: Options.Audit is a nil AuditFunc: pass a function, codemode.NoAudit to turn auditing off, or leave Audit nil for the default")
	}
	s.audit = o.Audit
	switch {
	case s.audit != nil:
	case o.Logger != nil:
		s.audit = NewSlogAudit(o.Logger)
	default:
		s.audit = NewSlogAudit(slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	}
	if err := checkIdentity(cat, o); err != nil {
		return nil, err
	}
	if o.Principal != nil && o.DisableLocalhostProtection && !o.InsecureRemotePrincipal {
		return nil, errors.New("codemode: DisableLocalhostProtection with Principal lets a tunnel carry remote requests that act as Principal: " +
			"configure Auth, or set InsecureRemotePrincipal if that is really meant")
	}
	if a := o.Auth; a != nil {
		if err := a.check(); err != nil {
			return nil, fmt.Errorf("codemode: %w", err)
		}
		if err := checkAuthConsistency(a); err != nil {
			return nil, err
		}
		prm, err := oauthmeta.NewResourceMetadata(oauthmeta.ResourceConfig{
			Resource:             a.Resource,
			AuthorizationServers: a.AuthorizationServers,
			ScopesSupported:      s.scopesSupported(),
			ResourceName:         s.resourceName(),
		})
		if err != nil {
			return nil, fmt.Errorf("codemode: Auth: %w", err)
		}
		if a.AuthServer != nil {
			if err := oauthmeta.CheckAuthServerMeta(a.AuthServer); err != nil {
				return nil, fmt.Errorf("codemode: Auth.AuthServer: %w", err)
			}
		}
		s.prm = prm
	}
	var err error
	if s.origins, err = httpmw.Origins(o.AllowedOrigins); err != nil {
		return nil, fmt.Errorf("codemode: AllowedOrigins: %w", err)
	}

	if o.Sandbox != nil {
		s.sb = o.Sandbox
	} else {
		s.sb, err = sandbox.New(&sandbox.Options{Limits: o.Limits, Mode: o.SandboxMode, WorkerPath: o.WorkerPath, Logger: s.logger})
		if err != nil {
			return nil, fmt.Errorf("codemode: sandbox: %w", err)
		}
		s.ownSB = true
	}
	if err := checkWorker(s.sb); err != nil {
		s.Close()
		return nil, err
	}
	if s.tel, err = newTelemetry(o.Telemetry, s.sb); err != nil {
		s.Close()
		return nil, fmt.Errorf("codemode: Telemetry: %w", err)
	}
	s.audit = s.tel.observe(s.audit)
	if s.approvals, err = newApprover(cat, o.Approvals); err != nil {
		s.Close()
		return nil, fmt.Errorf("codemode: %w", err)
	}
	if err := s.buildTools(); err != nil {
		s.Close()
		return nil, err
	}

	instr := o.Instructions
	if instr == "" {
		instr = fmt.Sprintf("Use the %s tool to run TypeScript against the %s API; its description lists every function.", ToolName, cat.Namespace())
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: o.Name, Title: o.Title, Version: o.Version}, &mcp.ServerOptions{
		Instructions: instr,
		Logger:       sdkLogger(s.logger),
		// No logging capability: logging notifications are deprecated in
		// 2026-07-28 and the tool returns its logs in its result.
		Capabilities: &mcp.ServerCapabilities{},
	})
	s.mcp.AddReceivingMiddleware(joinCancellation)
	s.AddTo(s.mcp)
	return s, nil
}

// MCPServer returns the go-sdk server New built, with the tools and the
// declarations resource added. A host may add its own tools, prompts and
// resources to it.
func (s *Server) MCPServer() *mcp.Server { return s.mcp }

// Declarations returns the TypeScript declarations of every function, the
// text the tool description ends with.
func (s *Server) Declarations() string { return s.all.declarations }

// ToolDescription returns the execute_code tool description.
func (s *Server) ToolDescription() string { return s.all.description }

// AddTo adds execute_code (and execute_readonly_code when enabled) and the
// declarations resource codemode://types/<namespace>.d.ts to srv, so a host
// can serve them from an MCP server it built itself. New already did this
// for MCPServer().
func (s *Server) AddTo(srv *mcp.Server) {
	s.addTool(srv, &s.all)
	if s.opts.ReadOnlyTool && len(s.readOnly.names) > 0 {
		s.addTool(srv, &s.readOnly)
	}
	s.addFunctionResources(srv)
	uri := "codemode://types/" + s.cat.Namespace() + ".d.ts"
	decls := s.all.declarations
	srv.AddResource(&mcp.Resource{
		URI:         uri,
		Name:        s.cat.Namespace() + ".d.ts",
		Title:       "TypeScript declarations of " + s.cat.Namespace(),
		Description: "The functions " + ToolName + " can call, as TypeScript declarations.",
		MIMEType:    "application/typescript",
		Size:        int64(len(decls)),
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/typescript", Text: decls}}}, nil
	})
}

// Close releases the sandbox's worker processes (unless the sandbox came
// from Options.Sandbox). Executions still running finish first. It is safe
// to call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.tel.close()
		if s.ownSB && s.sb != nil {
			s.closeErr = s.sb.Close()
		}
	})
	return s.closeErr
}

// callCatalog runs one catalog function; fn is unqualified. The call's
// warnings (fields a READ-ONLY function ignored) go to the sandbox with
// sandbox.Warn, which puts them in front of the model with the call's
// position.
func (s *Server) callCatalog(ctx context.Context, fn string, args json.RawMessage) (json.RawMessage, error) {
	out, warns, err := s.cat.CallWithWarnings(ctx, fn, args)
	for _, w := range warns {
		sandbox.Warn(ctx, w.Message)
	}
	return out, err
}
