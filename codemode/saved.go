package codemode

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/internal/discover"
	"github.com/brakinglab/codemode-go/internal/savedlist"
	"github.com/brakinglab/codemode-go/sandbox"
	"github.com/brakinglab/codemode-go/saved"
)

// Saved functions (Options.Saved): package saved keeps them and
// internal/savedlist answers tools/list per principal and notifies; this
// file binds them into an execution. execHost is a sandbox.SubprogramHost
// whose namespace saved holds the functions the principal can call, and
// codemode.save, saved, savedHistory and removeSaved are free calls. The
// host calls of saved code pass through the execution's chain like the
// script's own, carrying sandbox.CallPosition.From.

// savedEnv is the principal of h as package saved sees it.
func (h *execHost) savedEnv() saved.Env {
	owner := ""
	if h.principal != nil {
		owner = h.principal.Subject
	}
	return saved.NewEnv(owner, h.tiers, h.spec != nil && h.spec.name == ReadOnlyToolName)
}

// bindSaved adds the saved functions and the script functions that
// manage them to fns.
func (h *execHost) bindSaved(fns map[string][]string) {
	if len(h.SubprogramNamespaces()) > 0 {
		fns[saved.Namespace] = h.saved.Names(h.s.opts.Saved, h.savedEnv(), h.s.logger)
		fns[DiscoveryNamespace] = append(fns[DiscoveryNamespace], saved.ScriptFunctions...)
	}
}

// SubprogramNamespaces implements sandbox.SubprogramHost; a catalog's
// own namespace saved wins.
func (h *execHost) SubprogramNamespaces() []string {
	if _, clash := h.bound[saved.Namespace]; clash || h.s.opts.Saved == nil {
		return nil
	}
	return []string{saved.Namespace}
}

// Subprogram implements sandbox.SubprogramHost: a call of saved.name.
func (h *execHost) Subprogram(ctx context.Context, name string, args json.RawMessage) (*sandbox.Subprogram, error) {
	return h.s.opts.Saved.Subprogram(ctx, h.savedEnv(), strings.TrimPrefix(name, saved.Namespace+"."), args)
}

// savedText is text, or "" without saved functions.
func (s *Server) savedText(text string) string {
	if s.opts.Saved == nil {
		return ""
	}
	return text
}

// savedDiscover answers codemode.search and codemode.describe with the
// saved functions h's principal may call added (saved.Library.Discover).
func (h *execHost) savedDiscover(fn string, args json.RawMessage, catalogAnswer func(json.RawMessage) (json.RawMessage, error)) (json.RawMessage, error) {
	if len(h.SubprogramNamespaces()) == 0 {
		return catalogAnswer(args)
	}
	return h.s.opts.Saved.Discover(context.Background(), h.savedEnv(), fn, args, catalogAnswer)
}

// savedBaseKey carries the audit event of the execution whose script
// changes a saved function.
type savedBaseKey struct{}

// startSaved serves Options.Saved per principal and audits its changes.
func (s *Server) startSaved() {
	if s.opts.Saved != nil {
		s.lists = savedlist.New(s.opts.Saved, savedlist.Config{CodeTool: ToolName, ReadOnlyTool: ReadOnlyToolName,
			Principal: s.principal, Trigger: s.reregister, OnChange: s.savedChanged, Logger: s.logger})
	}
}

// reregister adds execute_code to srv again, so go-sdk notifies.
func (s *Server) reregister(srv *mcp.Server) {
	s.refreshMu.Lock() // not a view older than Refresh's
	defer s.refreshMu.Unlock()
	s.addTool(srv, &s.view.Load().all)
}

// savedChanged audits c.
func (s *Server) savedChanged(ctx context.Context, c saved.Change) {
	ev, _ := ctx.Value(savedBaseKey{}).(AuditEvent)
	ev.Kind, ev.Time, ev.Subject, ev.Function = AuditKind("function."+c.Kind.String()), time.Now(), c.Owner, saved.Namespace+"."+c.Name
	ev.Version, ev.Tier, ev.CodeSHA256, ev.CodeBytes = c.Version, c.Tier.String(), c.CodeSHA256, c.CodeBytes
	s.audit.Audit(ctx, ev)
}

// savedResultShape is the declared result of the saved function fn that
// h's principal calls, on one line as for any function (its output
// schema; "" when it has none or the store fails), for an error on a
// value it returned.
func (h *execHost) savedResultShape(fn string) string {
	ctx, cancel := context.WithTimeout(context.Background(), saved.StoreTimeout)
	defer cancel()
	infos, err := h.s.opts.Saved.Infos(ctx, h.savedEnv().Owner)
	if err != nil {
		return ""
	}
	for _, info := range infos {
		if info.Name == fn {
			_, out := info.Nodes()
			return discover.ResultShape(out)
		}
	}
	return ""
}
