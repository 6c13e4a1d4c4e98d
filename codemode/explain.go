package codemode

import (
	"fmt"
	"strings"

	"github.com/brakinglab/codemode-go/internal/discover"
	"github.com/brakinglab/codemode-go/sandbox"
	"github.com/brakinglab/codemode-go/saved"
)

// The sandbox words its errors about unknown functions and positional
// arguments with what only codemode knows (sandbox.Explainer): the
// functions codemode.search ranks closest to a name that does not exist,
// and the argument object a function takes.

// Suggest implements sandbox.Explainer: the functions of this tool that
// codemode.search ranks first for an unknown name, qualified, each with
// its summary, and the count they were picked from.
func (h *execHost) Suggest(name string) string {
	if h.spec == nil {
		return ""
	}
	_, fn, _ := strings.Cut(name, ".")
	return h.spec.v.disc.ix.Suggest(discTool{h.s, h.spec}, fn)
}

// Withheld implements sandbox.Withholder: a write function that the
// read-only tool does not bind exists under the full tool, and the
// script's TypeError says so, with its tier, instead of "is not a
// function" and guesses.
func (h *execHost) Withheld(name string) string {
	if h.spec == nil {
		return ""
	}
	return withheld(h.spec, name)
}

// withheld explains name (namespace.function), which sp does not bind,
// if the server's full tool binds it: the read-only tool leaves out
// every function that may write. "" otherwise.
func withheld(sp *toolSpec, name string) string {
	if _, bound := sp.tiers[name]; bound {
		return ""
	}
	all := &sp.v.all
	tier, ok := all.tiers[name]
	if !ok || sp.name == all.name {
		return ""
	}
	return fmt.Sprintf("%s is not available in %s because it writes (tier %s); call it from %s.", name, sp.name, tier, all.name)
}

// Shape implements sandbox.Explainer: the argument object of name
// (namespace.function), on one line.
func (h *execHost) Shape(name string) string {
	if _, bound := h.tiers[name]; !bound || h.spec == nil {
		return ""
	}
	in, _ := h.spec.v.disc.info[name].Nodes()
	return discover.Shape(in)
}

var (
	_ sandbox.Explainer       = (*execHost)(nil)
	_ sandbox.Withholder      = (*execHost)(nil)
	_ sandbox.ResultDescriber = (*execHost)(nil)
)

// ResultShape implements sandbox.ResultDescriber: the declared result of
// name (namespace.function), on one line, so that an error on a value it
// returned can name it; for codemode's own functions, what their
// declarations say; for a saved function, its output schema as its
// declaration shows it.
func (h *execHost) ResultShape(name string) string {
	if fn, ok := strings.CutPrefix(name, DiscoveryNamespace+"."); ok {
		if fn == "chart" {
			return "string"
		}
		return discover.FreeResult(fn)
	}
	if _, bound := h.tiers[name]; !bound || h.spec == nil {
		if fn, ok := strings.CutPrefix(name, saved.Namespace+"."); ok && len(h.SubprogramNamespaces()) > 0 {
			return h.savedResultShape(fn)
		}
		return ""
	}
	_, out := h.spec.v.disc.info[name].Nodes()
	return discover.ResultShape(out)
}
