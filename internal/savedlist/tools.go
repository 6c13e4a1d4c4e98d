package savedlist

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/saved"
)

// ToolPrefix starts the name of a saved function's plain tool.
const ToolPrefix = "saved_"

// Index bounds: the description names at most maxIndexEntries functions
// in at most maxIndexBytes.
const (
	maxIndexEntries = 40
	maxIndexBytes   = 4 << 10
)

// plainName is a saved function's name that may follow ToolPrefix: an
// MCP tool name ([A-Za-z0-9_.-]) that is also a JavaScript identifier, so
// that the call Retarget writes is exactly saved.name(…).
var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Index is the text a code tool's description ends with for the owner of
// fns (Library.List): the saved functions they may call (readOnly:
// READ-ONLY ones only), one line each, bounded; "" without any.
func Index(fns []*saved.Function, readOnly bool) string {
	var b strings.Builder
	n, shown := 0, 0
	for _, f := range fns {
		if readOnly && f.Tier != catalog.ReadOnly {
			continue
		}
		n++
		line := "// " + saved.Namespace + "." + f.Name + " (" + f.Tier.String() + ", version " + strconv.Itoa(f.Version) + "): " + oneLine(f.Description, 160)
		if !f.Mine {
			line += " (written by someone else)"
		}
		if shown == maxIndexEntries || b.Len()+len(line) > maxIndexBytes {
			continue
		}
		b.WriteString(line + "\n")
		shown++
	}
	if n == 0 {
		return ""
	}
	head := "// Your saved functions: call one as `await " + saved.Namespace + ".<name>(input)`; codemode.describe(\"" + saved.Namespace + ".<name>\") declares it.\n"
	if shown < n {
		b.WriteString("// … and " + strconv.Itoa(n-shown) + " more: codemode.saved() lists them all.\n")
	}
	return head + b.String()
}

// Tools returns fns (Library.List) as plain tools (codeTool runs them),
// those whose name is not a plainName left out.
func Tools(fns []*saved.Function, codeTool string) []*mcp.Tool {
	out := make([]*mcp.Tool, 0, len(fns))
	for _, f := range fns {
		if !plainName.MatchString(f.Name) {
			continue
		}
		desc := f.Description + "\n\nThe saved function " + f.Label() + " (" + f.Tier.String() + "), run as `return await " + saved.Namespace + "." + f.Name + "(arguments)` in " + codeTool + " would run it."
		if !f.Mine {
			desc += " Written by someone else; it runs as you."
		}
		readOnly := f.Tier == catalog.ReadOnly
		destructive := f.Tier == catalog.Mutating
		out = append(out, &mcp.Tool{
			Name:        ToolPrefix + f.Name,
			Title:       saved.Namespace + "." + f.Name,
			Description: desc,
			InputSchema: json.RawMessage(f.Input),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: readOnly, DestructiveHint: &destructive, OpenWorldHint: new(bool)},
		})
	}
	return out
}

// Retarget turns a call of the plain tool name into a call of codeTool
// with code that calls the saved function with args; ok is false for a
// name that is not a saved function's plain tool.
func Retarget(name string, args json.RawMessage, codeTool string) (tool string, targs json.RawMessage, ok bool) {
	fn, ok := strings.CutPrefix(name, ToolPrefix)
	if !ok || !plainName.MatchString(fn) {
		return "", nil, false
	}
	a := strings.TrimSpace(string(args))
	if a == "" || a == "null" {
		a = "{}"
	}
	// The arguments reach the function as JSON.parse reads them (an object
	// literal would treat a "__proto__" member otherwise).
	lit, err := json.Marshal(a)
	if err != nil {
		return "", nil, false
	}
	code, err := json.Marshal(map[string]string{"code": "return await " + saved.Namespace + "." + fn + "(JSON.parse(" + string(lit) + "));"})
	if err != nil {
		return "", nil, false
	}
	return codeTool, code, true
}

// oneLine is the first line of s, at most max bytes (cut on a rune).
func oneLine(s string, max int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) <= max {
		return s
	}
	for max > 0 && (s[max]&0xC0) == 0x80 {
		max--
	}
	return s[:max] + "…"
}
