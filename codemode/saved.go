package codemode

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/brakinglab/codemode-go/internal/discover"
	"github.com/brakinglab/codemode-go/sandbox"
	"github.com/brakinglab/codemode-go/saved"
)

// Saved functions (Options.Saved): package saved keeps them; this file
// binds them into an execution. execHost is a sandbox.SubprogramHost
// whose namespace saved holds the functions the principal can call, and
// codemode.save, saved, savedHistory and removeSaved are free calls (a
// per-execution budget of free calls, when there is one, applies to
// them). The host calls of saved code pass through the execution's chain
// like the script's own, carrying sandbox.CallPosition.From.

// savedStoreTimeout bounds listing saved functions where no request
// context reaches (binding, discovery).
const savedStoreTimeout = 5 * time.Second

// savedBinding is the saved functions an execution bound, listed once.
type savedBinding struct {
	once  sync.Once
	names []string
}

// savedEnv is the principal of h as package saved sees it.
func (h *execHost) savedEnv() saved.Env {
	owner := ""
	if h.principal != nil {
		owner = h.principal.Subject
	}
	return saved.NewEnv(owner, h.tiers, h.spec != nil && h.spec.name == ReadOnlyToolName)
}

// bindSaved adds the saved functions and the script functions that
// manage them to fns. A store that fails leaves the namespace empty.
func (h *execHost) bindSaved(fns map[string][]string) {
	if len(h.SubprogramNamespaces()) == 0 {
		return
	}
	h.saved.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), savedStoreTimeout)
		defer cancel()
		var err error
		if h.saved.names, err = h.s.opts.Saved.Names(ctx, h.savedEnv()); err != nil {
			h.s.logger.Error("codemode: listing saved functions failed", "err", err)
		}
	})
	fns[saved.Namespace] = h.saved.names
	fns[DiscoveryNamespace] = append(fns[DiscoveryNamespace], saved.ScriptFunctions...)
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
	ctx, cancel := context.WithTimeout(context.Background(), savedStoreTimeout)
	defer cancel()
	return h.s.opts.Saved.Discover(ctx, h.savedEnv(), fn, args, catalogAnswer)
}

// savedResultShape is the declared result of the saved function fn that
// h's principal calls, on one line as for any function (its output
// schema; "" when it has none or the store fails), for an error on a
// value it returned.
func (h *execHost) savedResultShape(fn string) string {
	ctx, cancel := context.WithTimeout(context.Background(), savedStoreTimeout)
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
