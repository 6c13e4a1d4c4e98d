// Package typegen writes TypeScript declarations for a catalog, so a model
// writing code against it sees exact argument and result types: which
// fields exist, which are optional, which strings are enums.
//
// The output is one `declare namespace <ns> { … }` block holding one
// function per catalog entry,
//
//	function getSessions(args?: GetSessionsArgs): Promise<GetSessionsResult>;
//
// with JSDoc from the description, the tier and required scopes, and an
// interface for every Go struct reached from the arguments and results.
// Optionality follows the catalog's decoding rules exactly (see package
// catalog): a field is optional when it is a pointer, an interface, a
// json.RawMessage, or tagged omitempty/omitzero, unless tagged
// validate:"required". The arguments are declared optional (args?) only
// when {} passes validation: no required field, and no required_without,
// required_without_all or required_unless rule. Go integers are declared
// as integer, an alias of number the output defines; each validate rule is
// documented from the same table the catalog's messages and InputSchema's
// keywords come from.
package typegen

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// Options configures Generate. The zero value is the documented default.
type Options struct {
	// Compact omits field documentation, constraint tags and the
	// explanation of each tier's rules, keeping function descriptions,
	// tiers and scopes. It shortens the output for small contexts.
	Compact bool
}

// ErrNilCatalog is returned by Generate when given a nil catalog.
var ErrNilCatalog = errors.New("typegen: nil catalog")

// Generate returns the TypeScript declarations for every function in c.
// The output is deterministic: the same catalog always gives the same text.
func Generate(c *catalog.Catalog, opts *Options) (string, error) {
	if c == nil {
		return "", ErrNilCatalog
	}
	g := newGen(opts)
	return g.generate(c.Namespace(), c.Functions())
}

// GenerateFuncs is Generate for an explicit namespace and function list,
// for hosts that expose only part of a catalog.
func GenerateFuncs(namespace string, funcs []catalog.FuncInfo, opts *Options) (string, error) {
	return newGen(opts).generate(namespace, funcs)
}

func newGen(opts *Options) *gen {
	g := &gen{names: map[reflect.Type]string{}, taken: map[string]bool{}, pkgTaken: map[string]bool{}}
	if opts != nil {
		g.opts = *opts
	}
	return g
}

// gen accumulates named type declarations while function signatures are
// written, so each Go type is declared once under a unique name.
type gen struct {
	opts  Options
	names map[reflect.Type]string // declared name of each named struct
	taken map[string]bool
	// pkgTaken records "Name pkgpath" pairs already declared, so a second
	// type with the same name from the same package gets a number rather
	// than a package prefix.
	pkgTaken map[string]bool
	pending  []reflect.Type // named structs still to declare, in first-use order
	// usedInteger records that some member is a Go integer, declared as
	// the integer alias so the model sees it must be whole.
	usedInteger bool
}

func (g *gen) generate(ns string, funcs []catalog.FuncInfo) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "declare namespace %s {\n", ns)
	// Reserve every Args/Result name first so Go type names never take them.
	for _, f := range funcs {
		g.taken[pascal(f.Name)+"Args"] = true
		g.taken[pascal(f.Name)+"Result"] = true
	}
	var types strings.Builder
	for i, f := range funcs {
		if f.In == nil || f.In.Kind() != reflect.Struct {
			return "", fmt.Errorf("typegen: %s: argument type %v is not a struct", f.Name, f.In)
		}
		if i > 0 {
			b.WriteString("\n")
		}
		g.function(&b, f)
		g.argsDecl(&types, f)
		g.resultDecl(&types, f)
	}
	for len(g.pending) > 0 {
		t := g.pending[0]
		g.pending = g.pending[1:]
		types.WriteString("\n")
		g.interfaceDecl(&types, g.names[t], t, false)
	}
	if types.Len() > 0 {
		b.WriteString(types.String())
	}
	if g.usedInteger {
		b.WriteString("\n  /** A whole number such as 139617; a fraction such as 139617.25 is rejected. */\n  type integer = number;\n")
	}
	b.WriteString("}\n")
	return b.String(), nil
}

func (g *gen) function(b *strings.Builder, f catalog.FuncInfo) {
	name := pascal(f.Name)
	var doc []string
	if d := strings.TrimSpace(f.Description); d != "" {
		doc = append(doc, strings.Split(d, "\n")...)
		doc = append(doc, "")
	}
	// The compact form leaves the tier's rules to the signatures: the
	// overload already shows what _validateOnly does.
	tier := f.Tier.String() + "."
	switch {
	case g.opts.Compact:
	case f.Tier.Strict():
		tier += " Unknown fields are rejected. `_validateOnly: true` checks the arguments without changing anything and resolves to `{ valid: true }`."
	default:
		tier += " Unknown fields are ignored."
	}
	doc = append(doc, tier)
	switch len(f.Scopes) {
	case 0:
	case 1:
		doc = append(doc, "Requires scope: "+f.Scopes[0]+".")
	default:
		doc = append(doc, "Requires scopes: "+strings.Join(f.Scopes, ", ")+".")
	}
	writeDoc(b, "  ", doc)
	opt := ""
	if jsontype.EmptyArgsAccepted(f.In) {
		opt = "?"
	}
	if f.Tier.Strict() {
		fmt.Fprintf(b, "  function %s(args%s: %sArgs & { _validateOnly: true }): Promise<{ valid: true }>;\n", f.Name, opt, name)
	}
	fmt.Fprintf(b, "  function %s(args%s: %sArgs): Promise<%sResult>;\n", f.Name, opt, name, name)
}

func (g *gen) argsDecl(b *strings.Builder, f catalog.FuncInfo) {
	b.WriteString("\n")
	g.interfaceDecl(b, pascal(f.Name)+"Args", f.In, f.Tier.Strict())
}

func (g *gen) resultDecl(b *strings.Builder, f catalog.FuncInfo) {
	name := pascal(f.Name) + "Result"
	b.WriteString("\n")
	t := f.Out
	_, declared := g.names[t]
	switch {
	case t.Kind() == reflect.Struct && t.Name() == "":
		g.interfaceDecl(b, name, t, false)
		return
	case t.Kind() == reflect.Struct && !declared && pascal(goName(t)) == name:
		// The Go type already carries the result's name: declare it once.
		g.names[t] = name
		g.interfaceDecl(b, name, t, false)
		return
	}
	expr := g.typeExpr(t, "")
	if t.Kind() == reflect.Pointer {
		expr += " | null" // a nil pointer result is null
	}
	fmt.Fprintf(b, "  type %s = %s;\n", name, expr)
}

// interfaceDecl writes an interface for struct t; validateOnly adds the
// dry-run member to argument interfaces of strict tiers.
func (g *gen) interfaceDecl(b *strings.Builder, name string, t reflect.Type, validateOnly bool) {
	if len(jsontype.Fields(t)) == 0 && !validateOnly {
		fmt.Fprintf(b, "  interface %s {}\n", name)
		return
	}
	fmt.Fprintf(b, "  interface %s {\n", name)
	g.members(b, t, "    ")
	if validateOnly {
		if !g.opts.Compact {
			writeDoc(b, "    ", []string{"Dry run: validate only; nothing is changed."})
		}
		b.WriteString("    _validateOnly?: boolean;\n")
	}
	b.WriteString("  }\n")
}
