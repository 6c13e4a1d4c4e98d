package codemode

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/chartrun"
	"github.com/brakinglab/codemode-go/internal/declres"
	"github.com/brakinglab/codemode-go/internal/discover"
	"github.com/brakinglab/codemode-go/saved"
	"github.com/brakinglab/codemode-go/typegen"
)

// Discovery says how the code tools present the catalog to the model.
type Discovery int

const (
	// DiscoveryAuto uses DiscoveryFull while the full description fits
	// Options.DiscoveryBudget and DiscoveryIndex above it. The default.
	DiscoveryAuto Discovery = iota
	// DiscoveryFull puts every declaration in the tool description: the
	// model needs no lookup, at the cost of the whole catalog's tokens in
	// every conversation.
	DiscoveryFull
	// DiscoveryIndex puts the rules once and one line per function (name,
	// tier, summary) in the description; the script looks declarations up
	// with codemode.search and codemode.describe in the same execution
	// that then makes the calls.
	DiscoveryIndex
)

// String returns "auto", "full" or "index".
func (d Discovery) String() string {
	switch d {
	case DiscoveryAuto:
		return "auto"
	case DiscoveryFull:
		return "full"
	case DiscoveryIndex:
		return "index"
	}
	return fmt.Sprintf("Discovery(%d)", int(d))
}

// DefaultDiscoveryBudget is the token budget of DiscoveryAuto: the full
// description is used while it costs at most this many tokens, estimated
// as characters / 4.
const DefaultDiscoveryBudget = 4000

// DiscoveryNamespace is the global that holds the discovery functions,
// codemode.search and codemode.describe, in every execution. A catalog
// may not use it as its namespace.
const DiscoveryNamespace = discover.Namespace

// discovery is the search index over a view's functions (internal/
// discover), and the functions by qualified name.
type discovery struct {
	ix   *discover.Index
	info map[string]boundFunc
}

// newDiscovery indexes fns by name, description, and the names and docs
// of their argument and result fields.
func newDiscovery(fns []boundFunc) *discovery {
	d := &discovery{info: make(map[string]boundFunc, len(fns))}
	in := make([]discover.Func, len(fns))
	for i, f := range fns {
		q := f.qualified()
		d.info[q] = f
		args, result := f.Nodes()
		in[i] = discover.Func{ID: q, Name: f.Name, Description: f.Description, Args: args, Result: result}
	}
	d.ix = discover.New(in)
	return d
}

// discoveryCall answers codemode.search and codemode.describe for one
// tool: sp decides which functions exist. args is the JSON array of the
// script's arguments.
func (s *Server) discoveryCall(sp *toolSpec, fn string, args json.RawMessage) (json.RawMessage, error) {
	return sp.v.disc.ix.Call(discTool{s, sp}, fn, args)
}

// discTool is a code tool as internal/discover sees it: what it binds,
// how names are shown, and declarations rendered by typegen.
type discTool struct {
	s  *Server
	sp *toolSpec
}

func (t discTool) Namespaces() []string { return t.sp.v.namespaces }
func (t discTool) Bound() []string      { return t.sp.names }
func (t discTool) Display(id string) string {
	return t.sp.v.display(id)
}
func (t discTool) Withheld(id string) string { return withheld(t.sp, id) }

func (t discTool) Tier(id string) (string, bool) {
	tier, ok := t.sp.tiers[id]
	if !ok {
		return "", false
	}
	return tier.String(), true
}

func (t discTool) Declare(ids []string) (string, error) {
	fns := make([]boundFunc, len(ids))
	for i, id := range ids {
		fns[i] = t.sp.v.disc.info[id]
	}
	return t.s.declarationsOf(t.sp.v, fns)
}

// discoveryDeclarations declares the discovery namespace for the model,
// with chart (and the saved functions' management) among its free
// functions.
func (s *Server) discoveryDeclarations(ns string) string {
	return discover.Declarations(ns, chartrun.Declaration+s.savedText("\n"+saved.ScriptDeclarations))
}

// index lists fns for the index-mode description: one line per function
// with its summary, grouped by tier.
func (s *Server) index(v *view, fns []boundFunc) string {
	var groups []discover.Group
	for _, t := range []catalog.Tier{catalog.ReadOnly, catalog.Mutating, catalog.Creative} {
		g := discover.Group{Tier: t.String()}
		for _, f := range fns {
			if f.Tier != t {
				continue
			}
			e := discover.Entry{Name: v.display(f.qualified()), Summary: v.disc.ix.Summary(f.qualified())}
			if v.needsApproval(f) {
				e.Approval = typegen.ApprovalTag
			}
			g.Entries = append(g.Entries, e)
		}
		groups = append(groups, g)
	}
	return discover.List(groups)
}

// namespaceResources is what the declaration resources of namespace ns
// serve (internal/declres): decls, and each function execute_code binds
// in the view current when a resource is read.
func (s *Server) namespaceResources(ns, decls string) declres.Namespace {
	bound := func(name string) (*toolSpec, string, error) {
		sp, q := &s.current().all, ns+"."+name
		if _, ok := sp.tiers[q]; !ok {
			return nil, "", errors.New("not bound")
		}
		return sp, q, nil
	}
	return declres.Namespace{Name: ns, Tool: ToolName, Declarations: decls,
		Function: func(name string) (string, error) {
			sp, q, err := bound(name)
			if err != nil {
				return "", err
			}
			return sp.v.disc.ix.Describe(discTool{s, sp}, []string{q})
		},
		Schemas: func(name string) (string, error) {
			sp, q, err := bound(name)
			if err != nil {
				return "", err
			}
			f := sp.v.disc.info[q].FuncInfo
			in, err := typegen.InputSchema(f)
			if err != nil {
				return "", err
			}
			out, err := typegen.OutputSchema(f)
			if err != nil {
				return "", err
			}
			b, err := json.Marshal(struct {
				Input  json.RawMessage `json:"input"`
				Output json.RawMessage `json:"output"`
			}{in, out})
			return string(b), err
		},
	}
}

// MaxDiscoveryCalls is the most discovery calls (codemode.search,
// codemode.describe) one execution may make. They do not spend
// Limits.MaxCalls, but they are bounded: answers are cached per catalogue
// version and tool, each execution may make this many, and its uncached
// answers may take 2 s of host time (internal/discover's Budget).
const MaxDiscoveryCalls = discover.MaxCalls

// discover answers a discovery call of h's execution from the cache or by
// computing it, within the execution's budget. The cache is the
// server's: what only this principal may see (saved functions) is added
// to the cached answer, never into it.
func (h *execHost) discover(fn string, args json.RawMessage) (json.RawMessage, error) {
	return h.savedDiscover(fn, args, func(args json.RawMessage) (json.RawMessage, error) {
		version := h.spec.v.gen // a refresh makes a new view: older answers are dropped
		key := discover.Key{Tool: h.spec.name, Fn: fn, Args: string(args)}
		return h.disc.Answer(&h.s.discCache, version, key, func() (json.RawMessage, error) {
			return h.s.discoveryCall(h.spec, fn, args)
		})
	})
}
