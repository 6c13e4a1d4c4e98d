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

// scopeWord is "scope" or "scopes" for a comma-separated list.
func scopeWord(list string) string {
	if strings.Contains(list, ", ") {
		return "scopes"
	}
	return "scope"
}

// readRule is what READ-ONLY functions share.
const readRule = "only read; an unknown argument field is ignored and reported as a warning."

// tierOrder orders the groups of functions: reads first.
func tierOrder(t catalog.Tier) int {
	switch t {
	case catalog.ReadOnly:
		return 0
	case catalog.Mutating:
		return 1
	}
	return 2
}

// ApprovalTag marks a function whose calls wait for the user's approval,
// in its JSDoc and in a host's index of functions.
const ApprovalTag = "@approval"

// writeType and writeOptType are the call signatures of a strict
// function, declared once in the header: the dry-run overload and the real
// call, with required or optional arguments.
const (
	writeType    = "Write"
	writeOptType = "WriteOpt"
)

// header states once what every function shares: the tiers' rules, the
// dry-run marker when a strict function is present, and each tier's
// scopes when all its functions need the same ones. When grouped, the
// functions follow in tier groups whose headers say the scopes and the
// READ-ONLY rule. It returns those
// scopes by tier ("" for none or when the functions differ: they then
// state their own).
func header(b *strings.Builder, funcs []catalog.FuncInfo, opts *Options, grouped bool) map[catalog.Tier]string {
	scopes := map[catalog.Tier]string{}
	seen := map[catalog.Tier]bool{}
	differ := map[catalog.Tier]bool{}
	var strict, read, approval bool
	for _, f := range funcs {
		approval = approval || opts.needsApproval(f)
		s := strings.Join(f.Scopes, ", ")
		if seen[f.Tier] && scopes[f.Tier] != s {
			differ[f.Tier] = true
		}
		seen[f.Tier] = true
		scopes[f.Tier] = s
		strict = strict || f.Tier.Strict()
		read = read || !f.Tier.Strict()
	}
	for t := range differ {
		scopes[t] = ""
	}
	var lines []string
	if read && !grouped {
		lines = append(lines, "READ-ONLY functions "+readRule)
	}
	if strict {
		lines = append(lines, "MUTATING and CREATIVE functions change or create data; unknown argument fields are rejected. With `"+catalog.ValidateOnlyKey+": true` a call only checks its arguments and resolves to `{ valid: true }`.")
	}
	if approval {
		lines = append(lines, ApprovalTag+": the call asks the user first; once approved, the run resumes without repeating earlier calls. Declined: APPROVAL_DECLINED.")
	}
	// One sentence per distinct scope list, naming the tiers that need it.
	var order []string
	byScope := map[string][]string{}
	for _, t := range []catalog.Tier{catalog.ReadOnly, catalog.Mutating, catalog.Creative} {
		s := scopes[t]
		if !seen[t] || s == "" {
			continue
		}
		if byScope[s] == nil {
			order = append(order, s)
		}
		byScope[s] = append(byScope[s], t.String())
	}
	for _, s := range order {
		if !grouped {
			lines = append(lines, strings.Join(byScope[s], " and ")+" functions require "+scopeWord(s)+" "+s+".")
		}
	}
	for _, l := range lines {
		b.WriteString("// " + l + "\n") // line comments: about the namespace, not the next function
	}
	var req, opt bool
	for _, f := range funcs {
		if f.Tier.Strict() {
			if in, _, err := nodesOf(f); err == nil && in.EmptyArgsAccepted() {
				opt = true
			} else {
				req = true
			}
		}
	}
	if req {
		fmt.Fprintf(b, "interface %[1]s<A, R> { (args: A & { %[2]s: true }): Promise<{ valid: true }>; (args: A & { %[2]s?: false }): Promise<R>; }\n", writeType, catalog.ValidateOnlyKey)
	}
	if opt {
		fmt.Fprintf(b, "interface %[1]s<A, R> { (args: A & { %[2]s: true }): Promise<{ valid: true }>; (args?: A & { %[2]s?: false }): Promise<R>; }\n", writeOptType, catalog.ValidateOnlyKey)
	}
	return scopes
}

// argsExpr returns the argument type of a signature: the name of a
// struct several functions take, declared once, or else its members
// inline, next to the function they belong to.
func (g *gen) argsExpr(in *jsontype.Node) string {
	if len(in.Fields) == 0 && !in.Open {
		return "{}"
	}
	if g.shared[g.typeKey(in)] > 1 && nodeName(in) != "" {
		return g.named(in)
	}
	fields, bases := g.extends(in)
	var b strings.Builder
	if len(fields) > 0 || len(bases) == 0 {
		g.members(&b, in, fields)
	}
	if len(bases) > 0 {
		if b.Len() == 0 {
			return strings.Join(bases, " & ")
		}
		return strings.Join(bases, " & ") + " & " + b.String()
	}
	return b.String()
}

// resultDecl declares the result type when it needs a name of its own
// (an anonymous object, or a type already called <Name>Result) and
// returns the type expression the signature resolves to.
func (g *gen) resultDecl(b *strings.Builder, f catalog.FuncInfo, t *jsontype.Node) string {
	name := typeBase(f.Name) + "Result"
	k := g.typeKey(t)
	_, declared := g.names[k]
	switch {
	case t.Shape == jsontype.Struct && nodeName(t) == "":
		g.interfaceDecl(b, name, t)
		return name
	case t.Shape == jsontype.Struct && !declared && pascal(nodeName(t)) == name:
		g.names[k] = name
		g.interfaceDecl(b, name, t)
		return name
	}
	expr := g.typeExpr(t, "")
	if t.Shape == jsontype.Ptr && t.GoType != nil {
		expr += " | null" // a nil pointer result is null
	}
	return expr
}

// interfaceDecl writes an interface for struct node n, one member per
// line, a member's documentation at the end of its line when it fits on
// one.
func (g *gen) interfaceDecl(b *strings.Builder, name string, n *jsontype.Node) {
	fields, bases := g.extends(n)
	ext := ""
	if len(bases) > 0 {
		ext = " extends " + strings.Join(bases, ", ")
	}
	fmt.Fprintf(b, "interface %s%s ", name, ext)
	g.members(b, n, fields)
	b.WriteString("\n")
}

// members writes the given members of struct node n between braces: on
// one line when none has documentation and they fit, else one member per
// line, a member's documentation at the end of its line when it fits on
// one.
func (g *gen) members(b *strings.Builder, n *jsontype.Node, fields []jsontype.FieldNode) {
	const indent = "" // the braces delimit; indentation would cost a tenth of the text
	docs := make([][]string, len(fields))
	documented := false
	for i, f := range fields {
		if !g.opts.Compact {
			docs[i] = fieldDoc(n, f)
		}
		documented = documented || len(docs[i]) > 0
	}
	rest := ""
	if n.Open {
		rest = "[key: string]: unknown;" // additionalProperties: any further member
	}
	if len(fields) == 0 && rest == "" {
		b.WriteString("{}")
		return
	}
	if !documented {
		one := make([]string, len(fields), len(fields)+1)
		for i, f := range fields {
			one[i] = g.member(f) + ";"
			documented = documented || strings.Contains(one[i], "\n") // a documented object inside
		}
		if rest != "" {
			one = append(one, rest)
		}
		if line := "{ " + strings.TrimSuffix(strings.Join(one, " "), ";") + " }"; len(line) <= maxOneLine && !documented {
			b.WriteString(line)
			return
		}
	}
	b.WriteString("{\n")
	run := 0 // length of the line of undocumented members being written
	for i, f := range fields {
		m := g.member(f) + ";"
		doc := docs[i]
		if len(doc) == 0 {
			if run > 0 && run+1+len(m) <= maxPackedLine {
				b.WriteString(" " + m)
				run += 1 + len(m)
				continue
			}
			if run > 0 {
				b.WriteString("\n")
			}
			b.WriteString(indent + m)
			run = len(indent) + len(m)
			continue
		}
		if run > 0 {
			b.WriteString("\n")
			run = 0
		}
		one, short := oneLine(doc)
		if !short {
			writeDoc(b, indent, doc) // too long for the end of a line
		}
		b.WriteString(indent + m)
		if short && one != "" {
			b.WriteString(" // " + one)
		}
		b.WriteString("\n")
	}
	if run > 0 {
		b.WriteString("\n")
	}
	if rest != "" {
		b.WriteString(rest + "\n")
	}
	b.WriteString("}")
}

// maxPackedLine is the longest line of undocumented members written
// together inside a multi-line object type.
const maxPackedLine = 120

// member is one member's name, optionality and type.
func (g *gen) member(f jsontype.FieldNode) string {
	opt := "?"
	if f.Required {
		opt = ""
	}
	tag := ""
	if f.Go != nil {
		tag = f.Go.Validate
	}
	return propName(f.Name) + opt + ": " + g.typeExpr(f.Node, tag)
}

// extends splits the members of struct node n into those of the named
// Go structs it embeds whole (declared once and extended, rather than
// repeated) and its own. Only a struct declared anyway is extended (a
// base of its own would cost more than it saves); one embedded by
// pointer, or whose members n shadows, is not (the node does not list
// it in Embeds): its members are listed. Schema-built nodes have no
// embedding: all members are their own.
func (g *gen) extends(n *jsontype.Node) ([]jsontype.FieldNode, []string) {
	fields := n.Fields
	var bases []string
	for _, e := range n.Embeds {
		name, declared := g.names[g.typeKey(e.Node)]
		if !declared {
			continue
		}
		var own []jsontype.FieldNode
		for _, f := range fields {
			if len(f.Go.Index) < 2 || f.Go.Index[0] != e.Index {
				own = append(own, f)
			}
		}
		bases = append(bases, name)
		fields = own
	}
	return fields, bases
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
