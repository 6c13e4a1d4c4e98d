package codemode

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
)

// buildTools computes what execute_code and execute_readonly_code expose.
func (s *Server) buildTools() error {
	fns := s.cat.Functions()
	if len(fns) == 0 {
		return ErrNoFunctions
	}
	s.disc = newDiscovery(fns)
	var ro []catalog.FuncInfo
	for _, f := range fns {
		if f.Tier == catalog.ReadOnly {
			ro = append(ro, f)
		}
	}
	var err error
	if s.all, err = s.spec(ToolName, fns, false); err != nil {
		return err
	}
	if s.opts.ReadOnlyTool && len(ro) > 0 {
		if s.readOnly, err = s.spec(ReadOnlyToolName, ro, true); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) spec(name string, fns []catalog.FuncInfo, readOnlyTool bool) (toolSpec, error) {
	sp := toolSpec{name: name, tiers: map[string]catalog.Tier{}}
	allRead, anyMutating, anyWrite := true, false, false
	for _, f := range fns {
		sp.names = append(sp.names, f.Name)
		sp.tiers[f.Name] = f.Tier
		switch f.Tier {
		case catalog.Mutating:
			anyMutating, anyWrite, allRead = true, true, false
		case catalog.Creative:
			anyWrite, allRead = true, false
		}
	}
	decls, err := s.declarations(fns)
	if err != nil {
		return sp, fmt.Errorf("codemode: declarations: %w", err)
	}
	sp.declarations = decls
	example := s.opts.Example
	if example == "" {
		example = defaultExample(s.cat.Namespace(), firstRead(fns))
	}
	sibling := ""
	switch {
	case readOnlyTool:
		sibling = ToolName
	case s.opts.ReadOnlyTool && anyWrite && !allRead && hasReadOnly(fns):
		sibling = ReadOnlyToolName
	}
	sp.description, sp.mode, err = s.describeTool(readOnlyTool, sibling, example, fns, decls)
	if err != nil {
		return sp, fmt.Errorf("codemode: description: %w", err)
	}
	// The hints describe the worst a call can do: any MUTATING function
	// makes the tool destructive; CREATIVE ones only add data.
	sp.annotations = &mcp.ToolAnnotations{
		Title:           "Run TypeScript against " + s.cat.Namespace(),
		ReadOnlyHint:    allRead,
		DestructiveHint: ptr(anyMutating),
		IdempotentHint:  allRead,
		OpenWorldHint:   ptr(s.opts.OpenWorld),
	}
	if readOnlyTool {
		sp.annotations.Title = "Query " + s.cat.Namespace() + " with TypeScript (read-only)"
	}
	return sp, nil
}

// firstRead names the function the default example calls: the first
// READ-ONLY one, or the first function.
func firstRead(fns []catalog.FuncInfo) string {
	for _, f := range fns {
		if f.Tier == catalog.ReadOnly {
			return f.Name
		}
	}
	return fns[0].Name
}

func ptr[T any](v T) *T { return &v }

func hasReadOnly(fns []catalog.FuncInfo) bool {
	for _, f := range fns {
		if f.Tier == catalog.ReadOnly {
			return true
		}
	}
	return false
}
