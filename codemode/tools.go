package codemode

import (
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/discover"
)

// spec computes one code tool of v: the functions fns it binds, their
// declarations and the description.
func (s *Server) spec(v *view, name string, fns []boundFunc, readOnlyTool bool) (toolSpec, error) {
	sp := toolSpec{v: v, name: name, bound: map[string][]string{}, tiers: map[string]catalog.Tier{}}
	allRead, anyMutating, anyWrite := true, false, false
	for _, f := range fns {
		sp.bound[f.ns] = append(sp.bound[f.ns], f.Name)
		sp.names = append(sp.names, f.qualified())
		sp.tiers[f.qualified()] = f.Tier
		switch f.Tier {
		case catalog.Mutating:
			anyMutating, anyWrite, allRead = true, true, false
		case catalog.Creative:
			anyWrite, allRead = true, false
		}
	}
	decls, err := s.declarationsOf(v, fns)
	if err != nil {
		return sp, fmt.Errorf("codemode: declarations: %w", err)
	}
	sp.declarations = decls
	example := s.opts.Example
	if example == "" {
		f := firstRead(fns)
		example = discover.Example(f.ns, f.Name)
	}
	sibling := ""
	switch {
	case readOnlyTool:
		sibling = ToolName
	case s.opts.ReadOnlyTool && anyWrite && !allRead && hasReadOnly(fns):
		sibling = ReadOnlyToolName
	}
	sp.description, sp.mode, err = s.describeTool(v, readOnlyTool, sibling, example, fns, decls)
	if err != nil {
		return sp, fmt.Errorf("codemode: description: %w", err)
	}
	// The hints describe the worst a call can do: any MUTATING function
	// makes the tool destructive; CREATIVE ones only add data.
	what := strings.Join(v.namespaces, ", ")
	sp.annotations = &mcp.ToolAnnotations{
		Title:           "Run TypeScript against " + what,
		ReadOnlyHint:    allRead,
		DestructiveHint: ptr(anyMutating),
		IdempotentHint:  allRead,
		OpenWorldHint:   ptr(s.opts.OpenWorld),
	}
	if readOnlyTool {
		sp.annotations.Title = "Query " + what + " with TypeScript (read-only)"
	}
	return sp, nil
}

// firstRead names the function the default example calls: the first
// READ-ONLY one, or the first function.
func firstRead(fns []boundFunc) boundFunc {
	for _, f := range fns {
		if f.Tier == catalog.ReadOnly {
			return f
		}
	}
	return fns[0]
}

func ptr[T any](v T) *T { return &v }

func hasReadOnly(fns []boundFunc) bool {
	for _, f := range fns {
		if f.Tier == catalog.ReadOnly {
			return true
		}
	}
	return false
}
