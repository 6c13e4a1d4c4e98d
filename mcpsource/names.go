package mcpsource

import (
	"strings"

	"github.com/brakinglab/codemode-go/internal/jsident"
)

// FuncName returns the catalogue name of an MCP tool: the tool's name when
// it is a valid JavaScript identifier, else the name with every run of
// other characters replaced by one underscore ("get-notes" → "get_notes",
// "files.read" → "files_read"), an underscore put before a leading digit
// and after a reserved word ("delete" → "delete_"). Underscores, not
// camelCase, keep the converted name recognisable next to the tool's
// own, and most MCP tool names are snake_case already.
func FuncName(tool string) string {
	if jsident.Valid(tool) {
		return tool
	}
	var b strings.Builder
	gap := false
	for _, r := range tool {
		ok := r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			gap = true
			continue
		}
		if gap && b.Len() > 0 {
			b.WriteByte('_')
		}
		gap = false
		b.WriteRune(r)
	}
	s := b.String()
	if s == "" {
		return "tool_"
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "_" + s
	}
	if !jsident.Valid(s) {
		s += "_" // a reserved word
	}
	return s
}
