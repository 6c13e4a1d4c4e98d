package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/sandbox"
)

// ErrDuplicateNamespace is returned by NewMulti when two catalogues share
// a namespace: a script could not say which one it calls.
var ErrDuplicateNamespace = errors.New("codemode: two catalogs have the same namespace")

// checkNamespaces refuses a nil catalogue, the reserved discovery
// namespace and duplicates.
func checkNamespaces(cats []*catalog.Catalog) (map[string]*catalog.Catalog, error) {
	if len(cats) == 0 {
		return nil, errors.New("codemode: no catalog")
	}
	byNS := make(map[string]*catalog.Catalog, len(cats))
	for i, cat := range cats {
		if cat == nil {
			return nil, fmt.Errorf("codemode: catalog %d is nil", i)
		}
		ns := cat.Namespace()
		if ns == DiscoveryNamespace {
			return nil, fmt.Errorf("codemode: the namespace %q is reserved for discovery (codemode.search, codemode.describe); choose another", DiscoveryNamespace)
		}
		if _, dup := byNS[ns]; dup {
			return nil, fmt.Errorf("%w: %q; give each catalog its own namespace", ErrDuplicateNamespace, ns)
		}
		byNS[ns] = cat
	}
	return byNS, nil
}

// boundFunc is one function as the tools bind it: its catalogue's
// namespace and its description.
type boundFunc struct {
	ns string
	catalog.FuncInfo
}

// qualified is the name scripts call: namespace.function.
func (f boundFunc) qualified() string { return f.ns + "." + f.Name }

// view is everything the tools expose, computed from the catalogues'
// functions at one set of versions. A refresh builds a new view and
// swaps it in; an execution keeps the view it started with.
type view struct {
	gen           uint64 // this view's number: discovery answers are cached per view
	versions      []uint64
	namespaces    []string
	fns           []boundFunc // by namespace, then name
	all, readOnly toolSpec
	disc          *discovery
	approvals     *approval.Policy // nil: no function needs approval
}

// single reports whether one catalogue is served: names are then shown
// to the model unqualified where they always were (search hits, the index).
func (v *view) single() bool { return len(v.namespaces) == 1 }

// display is how a qualified name is shown in discovery answers.
func (v *view) display(q string) string {
	if v.single() {
		return strings.TrimPrefix(q, v.namespaces[0]+".")
	}
	return q
}

// needsApproval reports whether calls of f wait for the user's approval.
func (v *view) needsApproval(f boundFunc) bool {
	return v.approvals.Required(f.qualified())
}

// byNamespace groups fns by namespace, in the view's namespace order.
func (v *view) byNamespace(fns []boundFunc) (nss []string, groups map[string][]catalog.FuncInfo) {
	groups = map[string][]catalog.FuncInfo{}
	for _, f := range fns {
		groups[f.ns] = append(groups[f.ns], f.FuncInfo)
	}
	for _, ns := range v.namespaces {
		if len(groups[ns]) > 0 {
			nss = append(nss, ns)
		}
	}
	return nss, groups
}

// versions reads every catalogue's version.
func (s *Server) versions() []uint64 {
	out := make([]uint64, len(s.cats))
	for i, c := range s.cats {
		out[i] = c.Version()
	}
	return out
}

// current returns the view to serve, first rebuilding it if a catalogue
// changed since it was built.
func (s *Server) current() *view {
	v := s.view.Load()
	if slices.Equal(v.versions, s.versions()) {
		return v
	}
	_ = s.Refresh() // on error the old view still serves; the error was logged
	return s.view.Load()
}

// Refresh follows the catalogs: if a catalog's Version changed since the
// tools were last built, it rebuilds the declarations, description, search
// index and resources from the current functions and re-registers the
// tools on every server they were added to (New's and those passed to
// AddTo); go-sdk then tells connected clients with
// notifications/tools/list_changed. Executions already running finish on
// what they started with. Without a change it does nothing.
//
// A Server refreshes by itself before serving each request, so a client
// never sees stale tools; call Refresh (on a timer, or when a source
// reports a change) to tell connected clients without waiting for their
// next request. A catalog left without functions drops out of the
// description until it has some again; if none has any, the previous
// functions stay and Refresh returns [ErrNoFunctions].
func (s *Server) Refresh() error {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	old := s.view.Load()
	if slices.Equal(old.versions, s.versions()) {
		return nil
	}
	v, err := s.buildView(false)
	if err != nil {
		s.logger.Error("codemode: the catalogs changed but cannot be served; the previous functions stay", "err", err)
		return err
	}
	s.view.Store(v)
	for _, srv := range s.servers {
		s.register(srv, v, old)
	}
	return nil
}

// buildView computes what the tools expose from the catalogues' functions.
// At New (strict) every catalog must have a function; later, one that
// lost them all is left out until it has some again.
func (s *Server) buildView(strict bool) (*view, error) {
	v := &view{gen: s.viewGen.Add(1), versions: s.versions()}
	for _, cat := range s.cats {
		fns := cat.Functions()
		if len(fns) == 0 && strict {
			if len(s.cats) == 1 {
				return nil, ErrNoFunctions
			}
			return nil, fmt.Errorf("%w: %q", ErrNoFunctions, cat.Namespace())
		}
		if len(fns) == 0 {
			continue
		}
		v.namespaces = append(v.namespaces, cat.Namespace())
		for _, f := range fns {
			v.fns = append(v.fns, boundFunc{ns: cat.Namespace(), FuncInfo: f})
		}
	}
	if len(v.fns) == 0 {
		return nil, ErrNoFunctions
	}
	v.approvals = s.approvals.Policy(approvalFuncs(v.fns))
	v.disc = newDiscovery(v.fns)
	var ro []boundFunc
	for _, f := range v.fns {
		if f.Tier == catalog.ReadOnly {
			ro = append(ro, f)
		}
	}
	var err error
	if v.all, err = s.spec(v, ToolName, v.fns, false); err != nil {
		return nil, err
	}
	if s.opts.ReadOnlyTool && len(ro) > 0 {
		if v.readOnly, err = s.spec(v, ReadOnlyToolName, ro, true); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// tool returns the spec of the code tool called name in v, or nil.
func (v *view) tool(name string) *toolSpec {
	switch {
	case name == v.all.name:
		return &v.all
	case name == v.readOnly.name && v.readOnly.name != "":
		return &v.readOnly
	}
	return nil
}

// callCatalog runs one function, named namespace.function. The call's
// warnings (fields a READ-ONLY function ignored) go to the sandbox with
// sandbox.Warn, which puts them in front of the model with the call's
// position.
func (s *Server) callCatalog(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	ns, fn, _ := strings.Cut(name, ".")
	cat, ok := s.byNS[ns]
	if !ok {
		return nil, fmt.Errorf("%s is not available in this tool", name)
	}
	// The catalog logs internal errors through the server's logger unless
	// its own Options.Logger is set.
	out, warns, err := cat.CallWithWarnings(catalog.WithLogger(ctx, s.logger), fn, args)
	for _, w := range warns {
		sandbox.Warn(ctx, w.Message)
	}
	return out, s.explainUnauthenticated(ctx, name, err)
}
