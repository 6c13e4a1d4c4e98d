// Package typegen writes TypeScript declarations for a catalog, so a model
// writing code against it sees exact argument and result types: which
// fields exist, which are optional, which strings are enums.
//
// Most services start with package codemode, which builds on this one (see
// its documentation); use this package directly for finer control.
//
// The output is one `declare namespace <ns> { … }` block. It opens with
// what every function shares, said once: the strict tiers' rule, the
// approval rule when a function waits for the user's approval (tagged
// @approval, see [Options.Approval]), and the Write<Args, Result> call
// signature of MUTATING and CREATIVE functions (a `_validateOnly: true`
// overload resolving to `{ valid: true }`). Then the functions, grouped
// by tier under one line naming the tier, its scopes and (READ-ONLY) its
// rule, each with its arguments inline:
//
//	// READ-ONLY functions (scope sessions:read) only read; …
//	/** Lists your sessions, newest first. */
//	function getSessions(args?: { trackName?: string; limit?: int }): Promise<SessionRow[]>;
//	// MUTATING functions (scope sessions:write)
//	/** Deletes one of your notepads. @approval */
//	const deleteNotepad: Write<NotepadArgs, Deleted>;
//
// An argument struct several functions take is declared once, by name.
// Then an interface for every Go struct reached from the arguments and
// results (one extending a named struct it embeds, when that is declared
// anyway), a documented member per line with its documentation and
// constraints (@minimum, @maxLength, …) at the end of the line. Members
// are not indented: the braces delimit them, and indentation would cost a
// tenth of the text. A function lists its scopes only when they differ
// from its tier's.
// Optionality follows the catalog's decoding rules exactly (see package
// catalog): a field is optional when it is a pointer, an interface, a
// json.RawMessage, or tagged omitempty/omitzero, unless tagged
// validate:"required". The arguments are declared optional (args?) only
// when {} passes validation: no required field, and no required_without,
// required_without_all or required_unless rule. Go integers are declared
// as int, an alias of number the output defines, and times as datetime,
// an alias of string; each validate rule is documented from the same table
// the catalog's messages and InputSchema's keywords come from.
//
// Functions registered with catalog.AddSchema are rendered by the same
// code from the same type model, so a Go function and its JSON-Schema
// twin declare identically. A schema's named types are its $defs (or
// draft-07 definitions) entries and titled objects; nullable types are
// `T | null`, oneOf/anyOf unions, prefixItems tuples, additionalProperties
// records, enum and const literal unions; descriptions, defaults,
// formats, patterns and bounds are JSDoc. What TypeScript cannot show
// (not, if/then/else, patternProperties) is declared unknown rather than
// refused; the catalog still enforces it.
package typegen

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
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
	// Approval reports whether calls of f wait for the user's approval;
	// such functions are tagged @approval and the rule is stated once in
	// the header. Nil means f.Approval == catalog.ApprovalRequired (a
	// host whose tier defaults also require approval says so here).
	Approval func(f catalog.FuncInfo) bool
}

// needsApproval applies o.Approval, or the catalog's own setting.
func (o *Options) needsApproval(f catalog.FuncInfo) bool {
	if o != nil && o.Approval != nil {
		return o.Approval(f)
	}
	return f.Approval == catalog.ApprovalRequired
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

// Preamble returns what the declarations of funcs open with, without the
// functions: the namespace block holding the tiers' rules, the scopes each
// tier needs and the Write call signatures. A host that lists functions
// without declaring them (an index) shows it so the rules are still said.
func Preamble(namespace string, funcs []catalog.FuncInfo, opts *Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "declare namespace %s {\n", namespace)
	header(&b, funcs, opts, false)
	b.WriteString("}\n")
	return b.String()
}

func newGen(opts *Options) *gen {
	g := &gen{names: map[any]string{}, taken: map[string]bool{}, pkgTaken: map[string]bool{}}
	if opts != nil {
		g.opts = *opts
	}
	return g
}

// gen accumulates named type declarations while function signatures are
// written, so each Go type is declared once under a unique name.
type gen struct {
	opts  Options
	names map[any]string // declared name of each named struct, by typeKey
	taken map[string]bool
	// pkgTaken records "Name pkgpath" pairs already declared, so a second
	// type with the same name from the same package gets a number rather
	// than a package prefix.
	pkgTaken map[string]bool
	pending  []*jsontype.Node // named structs still to declare, in first-use order
	// usedInteger records that some member is a Go integer, declared as
	// the int alias so the model sees it must be whole.
	usedInteger bool
	// usedDateTime records that some member is a time.Time, declared as
	// the datetime alias so its format is said once.
	usedDateTime bool
	// shared counts the functions taking each argument type: a type
	// several take is declared once, by name; others are written inline.
	shared map[any]int
	// tierScopes holds the scopes the header states for each tier.
	tierScopes map[catalog.Tier]string
	// unions holds the unions (oneOf/anyOf) being written: one reached
	// again through itself, not through a named struct, is unknown
	// there, as a type expression cannot name itself.
	unions map[*jsontype.Node]bool
}

func (g *gen) generate(ns string, funcs []catalog.FuncInfo) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "declare namespace %s {\n", ns)
	// Reserve every Args/Result name first so Go type names never take them.
	g.taken[writeType], g.taken[writeOptType] = true, true
	g.shared = map[any]int{}
	type model struct{ in, out *jsontype.Node }
	models := map[string]model{}
	for _, f := range funcs {
		in, out, err := nodesOf(f)
		if err != nil {
			return "", err
		}
		models[f.Name] = model{in, out}
		g.taken[typeBase(f.Name)+"Args"] = true
		g.taken[typeBase(f.Name)+"Result"] = true
		g.shared[g.typeKey(in)]++
	}
	g.tierScopes = header(&b, funcs, &g.opts, true)
	var types strings.Builder
	// Functions grouped by tier, the tier said once per group.
	funcs = slices.Clone(funcs)
	slices.SortStableFunc(funcs, func(a, b catalog.FuncInfo) int { return tierOrder(a.Tier) - tierOrder(b.Tier) })
	for i, f := range funcs {
		if i == 0 || funcs[i-1].Tier != f.Tier {
			fmt.Fprintf(&b, "// %s functions", f.Tier)
			if sc := g.tierScopes[f.Tier]; sc != "" {
				fmt.Fprintf(&b, " (%s %s)", scopeWord(sc), sc)
			}
			if f.Tier == catalog.ReadOnly {
				b.WriteString(" " + readRule)
			}
			b.WriteString("\n")
		}
		m := models[f.Name]
		g.function(&b, f, m.in, g.argsExpr(m.in), g.resultDecl(&types, f, m.out))
	}
	for len(g.pending) > 0 {
		n := g.pending[0]
		g.pending = g.pending[1:]
		if n.GoType == nil && n.Doc != "" && !g.opts.Compact {
			writeDoc(&types, "", strings.Split(strings.TrimSpace(n.Doc), "\n"))
		}
		g.interfaceDecl(&types, g.names[g.typeKey(n)], n)
	}
	if types.Len() > 0 {
		b.WriteString(types.String())
	}
	if g.usedInteger {
		b.WriteString("/** A whole number: 139617, not 139617.25. */\ntype int = number;\n")
	}
	if g.usedDateTime {
		b.WriteString("/** ISO 8601, e.g. \"2026-03-01T14:30:00Z\". */\ntype datetime = string;\n")
	}
	b.WriteString("}\n")
	return b.String(), nil
}

// function writes one function's documentation and signature. The tier's
// rules and the scopes shared by a tier are in the header, once, and the
// tier heads its group of functions; a function says its scopes only when
// they differ.
func (g *gen) function(b *strings.Builder, f catalog.FuncInfo, in *jsontype.Node, args, result string) {
	var doc []string
	if d := strings.TrimSpace(f.Description); d != "" {
		doc = strings.Split(d, "\n")
	}
	if g.opts.needsApproval(f) {
		if len(doc) > 0 {
			doc[len(doc)-1] = strings.TrimRight(doc[len(doc)-1], " ") + " " + ApprovalTag
		} else {
			doc = []string{ApprovalTag}
		}
	}
	if scopes := strings.Join(f.Scopes, ", "); scopes != g.tierScopes[f.Tier] {
		switch len(f.Scopes) {
		case 0:
			doc = append(doc, "Requires no scope.")
		case 1:
			doc = append(doc, "Requires scope: "+scopes+".")
		default:
			doc = append(doc, "Requires scopes: "+scopes+".")
		}
	}
	if one, ok := joinLines(doc); ok && one != "" {
		fmt.Fprintf(b, "/** %s */\n", safeComment(one)) // one line, however long: a signature follows
	} else {
		writeDoc(b, "", doc)
	}
	opt := ""
	if in.EmptyArgsAccepted() {
		opt = "?"
	}
	if f.Tier.Strict() {
		helper := writeType
		if opt != "" {
			helper = writeOptType
		}
		fmt.Fprintf(b, "const %s: %s<%s, %s>;\n", f.Name, helper, args, result)
		return
	}
	fmt.Fprintf(b, "function %s(args%s: %s): Promise<%s>;\n", f.Name, opt, args, result)
}

// nodesOf returns the type model of f's arguments and result: the one
// the catalog built at registration, or, for a FuncInfo made by hand,
// one built from its Go types.
func nodesOf(f catalog.FuncInfo) (in, out *jsontype.Node, err error) {
	if in, out = f.Nodes(); in != nil {
		return in, out, nil
	}
	if f.In == nil || f.In.Kind() != reflect.Struct {
		return nil, nil, fmt.Errorf("typegen: %s: argument type %v is not a struct", f.Name, f.In)
	}
	if in, err = jsontype.FromGo(f.In, true); err != nil {
		return nil, nil, fmt.Errorf("typegen: %s: %w", f.Name, err)
	}
	out = &jsontype.Node{Shape: jsontype.Any}
	if f.Out != nil {
		if out, err = jsontype.FromGo(f.Out, false); err != nil {
			return nil, nil, fmt.Errorf("typegen: %s: %w", f.Name, err)
		}
	}
	return in, out, nil
}
