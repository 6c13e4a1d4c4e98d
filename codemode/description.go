package codemode

import (
	_ "embed"
	"fmt"
	"strings"
	"text/template"
	"time"

	"github.com/brakinglab/codemode-go/internal/chartrun"
	"github.com/brakinglab/codemode-go/typegen"
)

//go:embed description.tmpl
var descriptionText string

var descriptionTmpl = template.Must(template.New("description").Parse(descriptionText))

// descriptionData fills description.tmpl.
type descriptionData struct {
	Namespace    string // the namespaces, joined by "`, `"
	CallAs       string // the namespace the call rule shows: the first
	Several      bool   // more than one namespace
	ReadOnly     bool   // the read-only tool: only READ-ONLY functions bound
	Sibling      string // the other code tool, when both are registered
	Timeout      string
	Memory       string
	MaxCalls     int
	MaxCode      string
	MaxOutput    string
	Example      string
	Declarations string
	Index        string // index mode: the one-line list of functions
	Discovery    string // index mode: the discovery namespace's declarations
	Count        int    // index mode: how many functions
	Charts       string // full mode: codemode.chart's declaration
}

// describeTool renders a tool's description in the discovery mode the
// options ask for: the full declarations, or (DiscoveryIndex, or
// DiscoveryAuto over the budget) the rules and an index of fns.
func (s *Server) describeTool(v *view, readOnly bool, sibling string, example string, fns []boundFunc, decls string) (string, Discovery, error) {
	nss, groups := v.byNamespace(fns)
	d := descriptionData{
		Namespace:    strings.Join(nss, "`, `"),
		CallAs:       nss[0],
		Several:      len(nss) > 1,
		ReadOnly:     readOnly,
		Sibling:      sibling,
		Example:      strings.TrimSpace(example),
		Declarations: strings.TrimSpace(decls),
		Charts:       "declare namespace " + DiscoveryNamespace + " {\n" + chartrun.Declaration + "\n}",
	}
	lim := s.sb.Limits()
	d.Timeout, d.Memory, d.MaxCalls = formatDuration(lim.Timeout), formatBytes(lim.MemoryBytes), lim.MaxCalls
	d.MaxCode, d.MaxOutput = formatBytes(int64(lim.MaxCodeBytes)), formatBytes(int64(lim.MaxOutputBytes))
	mode := s.opts.Discovery
	if mode != DiscoveryIndex {
		full, err := render(d)
		if err != nil || mode == DiscoveryFull || tokens(full) <= s.opts.DiscoveryBudget {
			return full, DiscoveryFull, err
		}
	}
	// The index keeps the rules the full declarations open with.
	var pre []string
	for _, ns := range nss {
		pre = append(pre, strings.TrimSpace(typegen.Preamble(ns, groups[ns], s.typegenOptions(v, ns))))
	}
	d.Declarations = strings.Join(pre, "\n")
	d.Index = s.index(v, fns)
	d.Discovery = discoveryDeclarations(strings.Join(nss, ", "))
	d.Count = len(fns)
	out, err := render(d)
	return out, DiscoveryIndex, err
}

// tokens estimates the tokens text costs a model: characters / 4.
func tokens(text string) int { return (len(text) + 3) / 4 }

func render(d descriptionData) (string, error) {
	var b strings.Builder
	err := descriptionTmpl.Execute(&b, d)
	return b.String(), err
}

// defaultExample is a short program in the model's own terms.
func defaultExample(ns, fn string) string {
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
