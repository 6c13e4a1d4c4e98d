package codemode

import (
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/typegen"
)

// declarations returns the TypeScript declarations of fns.
func (s *Server) declarations(fns []catalog.FuncInfo) (string, error) {
	return typegen.GenerateFuncs(s.cat.Namespace(), fns, s.typegenOptions())
}

// typegenOptions are the declarations' options: compact or not, and which
// functions wait for the user's approval under the effective options.
func (s *Server) typegenOptions() *typegen.Options {
	return &typegen.Options{Compact: s.opts.CompactDeclarations, Approval: s.needsApproval}
}

// needsApproval reports whether calls of f wait for the user's approval.
func (s *Server) needsApproval(f catalog.FuncInfo) bool {
	if s.approvals == nil {
		return false
	}
	_, ok := s.approvals.required[f.Name]
	return ok
}
