package mcpsource

import (
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
	return jsident.From(tool, "tool_")
}
