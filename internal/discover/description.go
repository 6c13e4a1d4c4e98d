package discover

import (
	_ "embed"
	"fmt"
	"strings"
	"text/template"
	"time"
)

//go:embed description.tmpl
var descriptionText string

var descriptionTmpl = template.Must(template.New("description").Funcs(template.FuncMap{
	"duration": formatDuration,
	"bytes":    formatBytes,
}).Parse(descriptionText))

// Description is what a code tool's description says (description.tmpl):
// the rules of the code, the limits, an example, and then either every
// declaration (full mode) or the rules the declarations open with, the
// discovery functions and an index of the functions (index mode, when
// Index is set).
type Description struct {
	Namespace    string // the namespaces, joined by "`, `"
	CallAs       string // the namespace the call rule shows: the first
	Several      bool   // more than one namespace
	ReadOnly     bool   // the read-only tool: only READ-ONLY functions bound
	Sibling      string // the other code tool, when both are registered
	Timeout      time.Duration
	Memory       int64 // bytes
	MaxCalls     int
	MaxCode      int64 // bytes
	MaxOutput    int64 // bytes
	Example      string
	Declarations string // full mode: every declaration; index mode: their preambles
	Index        string // index mode: the one-line list of functions (List)
	Discovery    string // index mode: the discovery namespace's declarations
	Count        int    // index mode: how many functions
	Charts       string // full mode: the declaration of the free functions shown (codemode.chart)
}

// Render writes the description.
func (d *Description) Render() (string, error) {
	var b strings.Builder
	err := descriptionTmpl.Execute(&b, d)
	return b.String(), err
}

// Tokens estimates the tokens text costs a model: characters / 4.
func Tokens(text string) int { return (len(text) + 3) / 4 }

// Example is the default example of a description: a call of ns.fn.
func Example(ns, fn string) string {
	return fmt.Sprintf(`const result = await %s.%s({ /* arguments as declared */ });
return result;`, ns, fn)
}

func formatDuration(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return fmt.Sprintf("%d ms", d/time.Millisecond)
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
