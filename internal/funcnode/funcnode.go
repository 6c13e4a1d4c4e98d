// Package funcnode lets the library's own packages (typegen, codemode)
// read the type model of a catalog function without making it part of
// catalog's public API: catalog sets Of when it is initialised.
package funcnode

import "github.com/brakinglab/codemode-go/internal/jsontype"

// Of returns the argument and result nodes of a catalog.FuncInfo (passed
// as any, since this package cannot import catalog). It is set by package
// catalog; both are nil for a FuncInfo that catalog did not produce.
var Of func(info any) (args, result *jsontype.Node)
