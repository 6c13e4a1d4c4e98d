package codemode

import (
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/typegen"
)

// declarations returns the TypeScript declarations of fns.
func (s *Server) declarations(fns []catalog.FuncInfo) (string, error) {
	return typegen.GenerateFuncs(s.cat.Namespace(), fns, &typegen.Options{Compact: s.opts.CompactDeclarations})
}
