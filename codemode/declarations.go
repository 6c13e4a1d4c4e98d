package codemode

import (
	"strings"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/typegen"
)

// declarations returns the TypeScript declarations of fns, functions of
// the namespace ns.
func (s *Server) declarations(v *view, ns string, fns []catalog.FuncInfo) (string, error) {
	return typegen.GenerateFuncs(ns, fns, s.typegenOptions(v, ns))
}

// declarationsOf returns the declarations of fns, one declare namespace
// block per namespace, in the view's order.
func (s *Server) declarationsOf(v *view, fns []boundFunc) (string, error) {
	nss, groups := v.byNamespace(fns)
	if len(nss) == 1 {
		return s.declarations(v, nss[0], groups[nss[0]])
	}
	parts := make([]string, 0, len(nss))
	for _, ns := range nss {
		d, err := s.declarations(v, ns, groups[ns])
		if err != nil {
			return "", err
		}
		parts = append(parts, strings.TrimRight(d, "\n"))
	}
	return strings.Join(parts, "\n\n") + "\n", nil
}

// typegenOptions are the declarations' options for namespace ns: compact
// or not, and which functions wait for the user's approval under the
// effective options.
func (s *Server) typegenOptions(v *view, ns string) *typegen.Options {
	return &typegen.Options{Compact: s.opts.CompactDeclarations, Approval: func(f catalog.FuncInfo) bool {
		return v.needsApproval(boundFunc{ns: ns, FuncInfo: f})
	}}
}
