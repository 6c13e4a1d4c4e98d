package codemode

import (
	_ "embed"
	"fmt"
	"strings"
	"text/template"
	"time"

	"github.com/brakinglab/codemode-go/sandbox"
)

//go:embed description.tmpl
var descriptionText string

var descriptionTmpl = template.Must(template.New("description").Parse(descriptionText))

// descriptionData fills description.tmpl.
type descriptionData struct {
	Namespace    string
	ReadOnly     bool   // the read-only tool: only READ-ONLY functions bound
	Sibling      string // the other code tool, when both are registered
	HasMutations bool
	Timeout      string
	Memory       string
	MaxCalls     int
	MaxCode      string
	MaxOutput    string
	Example      string
	Declarations string
}

// describe renders the tool description: how to write code, the limits,
// then the declarations.
func describe(ns string, readOnly bool, sibling string, hasMutations bool, lim sandbox.Limits, example, decls string) (string, error) {
	var b strings.Builder
	err := descriptionTmpl.Execute(&b, descriptionData{
		Namespace:    ns,
		ReadOnly:     readOnly,
		Sibling:      sibling,
		HasMutations: hasMutations,
		Timeout:      formatDuration(lim.Timeout),
		Memory:       formatBytes(lim.MemoryBytes),
		MaxCalls:     lim.MaxCalls,
		MaxCode:      formatBytes(int64(lim.MaxCodeBytes)),
		MaxOutput:    formatBytes(int64(lim.MaxOutputBytes)),
		Example:      strings.TrimSpace(example),
		Declarations: strings.TrimSpace(decls),
	})
	return b.String(), err
}

// defaultExample is a short program in the model's own terms.
func defaultExample(ns, fn string) string {
	return fmt.Sprintf(`const data = await %s.%s({ /* arguments as declared */ });
console.log("fetched", Array.isArray(data) ? data.length : 1);
return data;`, ns, fn)
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
