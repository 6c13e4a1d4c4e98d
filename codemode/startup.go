package codemode

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/brakinglab/codemode-go/internal/httpmw"
	"github.com/brakinglab/codemode-go/oauthmeta"
	"github.com/brakinglab/codemode-go/sandbox"
)

// ErrNoIdentity is returned by New when Options has neither Auth nor
// Principal and the catalog does not allow anonymous calls: no HTTP
// request could ever be authorized, and every call would fail with "sign
// in" although there is nothing to sign in to.
var ErrNoIdentity = errors.New("codemode: no identity for HTTP requests: set Options.Auth to verify OAuth bearer tokens, " +
	"or Options.Principal to act as one user from loopback (development, tests, stdio-only servers)")

// ErrWorkerStart is wrapped by New when the sandbox cannot start a worker
// process; see [SandboxOptions.WorkerPath].
var ErrWorkerStart = sandbox.ErrWorkerStart

// applyDefaults checks the plain settings and fills their zero values.
func (s *Server) applyDefaults() error {
	o := &s.opts
	if o.Discovery < DiscoveryAuto || o.Discovery > DiscoveryIndex {
		return fmt.Errorf("codemode: unknown Discovery %d", int(o.Discovery))
	}
	if o.DiscoveryBudget <= 0 {
		o.DiscoveryBudget = DefaultDiscoveryBudget
	}
	if o.Name == "" {
		o.Name = strings.Join(s.namespaces(), "+")
	}
	if o.Version == "" {
		o.Version = "0.0.0"
	}
	if o.HTTP.MCPPath == "" {
		o.HTTP.MCPPath = DefaultMCPPath
	}
	if !strings.HasPrefix(o.HTTP.MCPPath, "/") || strings.ContainsAny(o.HTTP.MCPPath, " {}") || strings.HasPrefix(o.HTTP.MCPPath, "/.well-known/") {
		return fmt.Errorf("codemode: MCPPath %q: want a plain absolute path such as /mcp", o.HTTP.MCPPath)
	}
	if o.State.RateLimiter != nil && o.RateLimits.RatePerSecond < 0 {
		return errors.New("codemode: RateLimiter is set but a negative RatePerSecond turns the rate limit off; keep one of the two")
	}
	if o.State.FailureLimiter != nil && o.RateLimits.AuthFailuresPerSecond < 0 {
		return errors.New("codemode: FailureLimiter is set but a negative AuthFailuresPerSecond turns the failed-authentication limit off; keep one of the two")
	}
	if o.State.RequestLimiter != nil && o.RateLimits.RequestsPerSecond < 0 {
		return errors.New("codemode: RequestLimiter is set but a negative RequestsPerSecond turns the request limit off; keep one of the two")
	}
	if o.RateLimits.RequestsPerSecond == 0 {
		o.RateLimits.RequestsPerSecond = DefaultRequestsPerSec
	}
	if o.RateLimits.RequestBurst <= 0 {
		o.RateLimits.RequestBurst = DefaultRequestBurst
	}
	if o.RateLimits.RatePerSecond == 0 {
		o.RateLimits.RatePerSecond = DefaultRatePerSec
	}
	if o.RateLimits.RateBurst <= 0 {
		o.RateLimits.RateBurst = DefaultRateBurst
	}
	if o.RateLimits.AuthFailuresPerSecond == 0 {
		o.RateLimits.AuthFailuresPerSecond = DefaultAuthFailuresPerSec
	}
	if o.RateLimits.AuthFailureBurst <= 0 {
		o.RateLimits.AuthFailureBurst = DefaultAuthFailureBurst
	}
	if o.HTTP.MaxBodyBytes <= 0 {
		o.HTTP.MaxBodyBytes = DefaultMaxBodyBytes
	}
	s.logger = o.Logger
	if s.logger == nil {
		s.logger = slog.Default()
	}
	if f, ok := o.Audit.Sink.(AuditFunc); ok && f == nil {
		return errors.New("codemode: Options.Audit.Sink is a nil AuditFunc: pass a function, codemode.NoAudit to turn auditing off, or leave Audit nil for the default")
	}
	s.audit = o.Audit.Sink
	switch {
	case s.audit != nil:
	case o.Logger != nil:
		s.audit = NewSlogAudit(o.Logger)
	default:
		s.audit = NewSlogAudit(slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	}
	var err error
	if s.origins, err = httpmw.Origins(o.HTTP.AllowedOrigins); err != nil {
		return fmt.Errorf("codemode: AllowedOrigins: %w", err)
	}
	return nil
}

// checkIdentity refuses settings that leave HTTP requests without a
// usable identity, or with two.
func (s *Server) checkIdentity() error {
	o := &s.opts
	anonymous := false
	for _, c := range s.cats {
		anonymous = anonymous || c.AllowsAnonymous()
	}
	switch {
	case o.Auth != nil && o.Principal != nil:
		return errors.New("codemode: Options.Auth and Options.Principal are both set: Principal is for serving without authentication; remove one")
	case o.Auth == nil && o.Principal == nil && !anonymous:
		return ErrNoIdentity
	case o.Principal == nil && o.InsecureRemotePrincipal:
		return errors.New("codemode: Options.InsecureRemotePrincipal is set without Options.Principal")
	case o.Principal != nil && o.HTTP.DisableLocalhostProtection && !o.InsecureRemotePrincipal:
		return errors.New("codemode: DisableLocalhostProtection with Principal lets a tunnel carry remote requests that act as Principal: " +
			"configure Auth, or set InsecureRemotePrincipal if that is really meant")
	}
	return nil
}

// setupAuth checks Options.Auth and builds the protected resource
// metadata it serves.
func (s *Server) setupAuth() error {
	a := s.opts.Auth
	if a == nil {
		return nil
	}
	if err := a.check(); err != nil {
		return fmt.Errorf("codemode: %w", err)
	}
	if err := checkAuthConsistency(a); err != nil {
		return err
	}
	prm, err := oauthmeta.NewResourceMetadata(oauthmeta.ResourceConfig{
		Resource:             a.Resource,
		AuthorizationServers: a.AuthorizationServers,
		ScopesSupported:      s.scopesSupported(),
		ResourceName:         s.resourceName(),
	})
	if err != nil {
		return fmt.Errorf("codemode: Auth: %w", err)
	}
	if a.AuthServer != nil {
		if err := oauthmeta.CheckAuthServerMeta(a.AuthServer); err != nil {
			return fmt.Errorf("codemode: Auth.AuthServer: %w", err)
		}
	}
	s.prm = prm
	return nil
}

// startSandbox builds the sandbox (unless Options.Sandbox.Shared gives one) and
// starts one worker to prove the binary can be one.
func (s *Server) startSandbox() error {
	o := &s.opts
	if o.Sandbox.Shared != nil {
		s.sb = o.Sandbox.Shared
	} else {
		sb, err := sandbox.New(&sandbox.Options{Limits: o.Limits, Mode: o.Sandbox.Mode, Logger: s.logger, WorkerPath: o.Sandbox.WorkerPath})
		if err != nil {
			return fmt.Errorf("codemode: sandbox: %w", err)
		}
		s.sb, s.ownSB = sb, true
	}
	if err := checkWorker(s.sb); err != nil {
		s.Close()
		return err
	}
	return nil
}

// verifierIdentity is what a verifier may say about the tokens it accepts;
// oauthmeta's verifiers say both.
type (
	audienced interface{ Resource() string }
	issued    interface{ Issuer() string }
)

// checkAuthConsistency refuses Auth settings that contradict the
// verifier's: every token would then be refused at run time with a 401
// that says nothing about the configuration.
func checkAuthConsistency(a *Auth) error {
	if v, ok := a.Verifier.(audienced); ok && v.Resource() != a.Resource {
		return fmt.Errorf("codemode: Auth.Resource is %q but the verifier requires the audience %q%s: "+
			"tokens for one would be refused by the other; use the same canonical URI for both",
			a.Resource, v.Resource(), slashNote(a.Resource, v.Resource()))
	}
	if v, ok := a.Verifier.(issued); ok {
		iss := v.Issuer()
		found := false
		for _, s := range a.AuthorizationServers {
			if s == iss {
				found = true
				break
			}
		}
		if !found {
			note := ""
			for _, s := range a.AuthorizationServers {
				if n := slashNote(s, iss); n != "" {
					note = n
				}
			}
			return fmt.Errorf("codemode: Auth.AuthorizationServers %q do not include the verifier's issuer %q%s: "+
				"clients would get tokens from a server whose tokens are refused; list the issuer exactly as it appears in its tokens' iss claim",
				a.AuthorizationServers, iss, note)
		}
	}
	return nil
}

// slashNote points out when a and b differ only by a trailing slash.
func slashNote(a, b string) string {
	if a != b && strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/") {
		return " (they differ only by a trailing slash, which counts)"
	}
	return ""
}

// checkWorker starts one worker before New returns: a host binary that
// cannot run as a worker (typically a package initialiser that needs the
// host's environment) is reported now instead of failing every execution.
func checkWorker(sb *sandbox.Sandbox) error {
	err := sb.CheckWorker()
	if err == nil {
		return nil
	}
	return fmt.Errorf("codemode: %w\n"+
		"Workers re-execute this binary with an empty environment, so its package initialisers run in them before the sandbox takes over. "+
		"Either move the side effect (reading a required environment variable, opening a connection) from package-level variables and init functions into main, "+
		"or build a separate worker binary that imports the sandbox package without it and set Options.Sandbox.WorkerPath", err)
}
