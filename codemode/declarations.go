package codemode

import (
	"github.com/brakinglab/codemode-go/catalog"
)

// declarations returns the TypeScript declarations of fns.
func declarations(cat *catalog.Catalog, fns []catalog.FuncInfo) (string, error) {
	// TODO: typegen
	s := "declare namespace " + cat.Namespace() + " {\n"
	for _, f := range fns {
		s += "  function " + f.Name + "(args: any): Promise<any>;\n"
	}
	return s + "}\n", nil
}
