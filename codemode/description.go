package codemode

import (
	"strings"

	"github.com/brakinglab/codemode-go/internal/chartrun"
	"github.com/brakinglab/codemode-go/internal/discover"
	"github.com/brakinglab/codemode-go/saved"
	"github.com/brakinglab/codemode-go/typegen"
)

// describeTool renders a tool's description in the discovery mode the
// options ask for: the full declarations, or (DiscoveryIndex, or
// DiscoveryAuto over the budget) the rules and an index of fns.
func (s *Server) describeTool(v *view, readOnly bool, sibling string, example string, fns []boundFunc, decls string) (string, Discovery, error) {
	nss, groups := v.byNamespace(fns)
	lim := s.sb.Limits()
	d := discover.Description{
		Namespace:    strings.Join(nss, "`, `"),
		CallAs:       nss[0],
		Several:      len(nss) > 1,
		ReadOnly:     readOnly,
		Sibling:      sibling,
		Timeout:      lim.Timeout,
		Memory:       lim.MemoryBytes,
		MaxCalls:     lim.MaxCalls,
		MaxCode:      int64(lim.MaxCodeBytes),
		MaxOutput:    int64(lim.MaxOutputBytes),
		Example:      strings.TrimSpace(example),
		Declarations: strings.TrimSpace(decls),
		Charts:       "declare namespace " + DiscoveryNamespace + " {\n" + chartrun.Declaration + s.savedText("\n"+saved.ScriptDeclarations) + "\n}" + s.savedText(saved.DescriptionNote),
	}
	mode := s.opts.Discovery
	if mode != DiscoveryIndex {
		full, err := d.Render()
		if err != nil || mode == DiscoveryFull || discover.Tokens(full) <= s.opts.DiscoveryBudget {
			return full, DiscoveryFull, err
		}
	}
	// The index keeps the rules the full declarations open with.
	var pre []string
	for _, ns := range nss {
		pre = append(pre, strings.TrimSpace(typegen.Preamble(ns, groups[ns], s.typegenOptions(v, ns))))
	}
	d.Declarations = strings.Join(pre, "\n")
	d.Index = s.index(v, fns)
	d.Discovery = s.discoveryDeclarations(strings.Join(nss, ", "))
	d.Count = len(fns)
	out, err := d.Render()
	return out, DiscoveryIndex, err
}
