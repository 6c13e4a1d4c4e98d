package typegen

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

var durationType = reflect.TypeFor[time.Duration]()

// typeExpr returns the TypeScript type of node n, built from a Go type
// or from JSON Schema; tag is the validate tag that applies to a Go-built
// n (its oneof rule becomes a union of literals, and the part after
// "dive" applies to elements). A schema-built node carries its own rules
// and enum.
func (g *gen) typeExpr(n *jsontype.Node, tag string) string {
	rules, elemTag := jsontype.SplitValidate(tag)
	if n.GoType == nil && len(n.Enum) > 0 && n.Shape != jsontype.Ptr {
		return literalUnion(n.Enum)
	}
	switch sh := n.Shape; sh {
	case jsontype.Time:
		g.usedDateTime = true
		return "datetime"
	case jsontype.Text, jsontype.Bytes:
		return "string"
	case jsontype.Custom, jsontype.Unsupported:
		return "unknown"
	case jsontype.Any:
		if len(n.Variants) > 0 {
			if g.unions[n] {
				return "unknown"
			}
			if g.unions == nil {
				g.unions = map[*jsontype.Node]bool{}
			}
			g.unions[n] = true
			defer delete(g.unions, n)
			parts := make([]string, 0, len(n.Variants))
			for _, v := range n.Variants {
				e := g.typeExpr(v, "")
				if e == "unknown" {
					return "unknown"
				}
				if !slices.Contains(parts, e) {
					parts = append(parts, e)
				}
			}
			return strings.Join(parts, " | ")
		}
		return "unknown"
	case jsontype.Bool:
		return "boolean"
	case jsontype.Int, jsontype.Uint, jsontype.Float:
		if vals := oneOf(rules); vals != nil {
			return numberUnion(vals)
		}
		if sh.Integer() {
			g.usedInteger = true
			return "int"
		}
		return "number"
	case jsontype.String:
		if vals := oneOf(rules); vals != nil {
			return stringUnion(vals)
		}
		return "string"
	case jsontype.Ptr:
		if n.GoType != nil {
			return g.typeExpr(n.Elem, tag)
		}
		e := g.typeExpr(n.Elem, "")
		if e == "unknown" {
			return e
		}
		return e + " | null" // a schema's nullable type
	case jsontype.Slice, jsontype.Array:
		if n.Items != nil {
			parts := make([]string, len(n.Items))
			for i, it := range n.Items {
				parts[i] = g.typeExpr(it, "")
			}
			if n.Length < 0 {
				parts = append(parts, "..."+arrayOf(g.typeExpr(n.Elem, "")))
			}
			return "[" + strings.Join(parts, ", ") + "]"
		}
		e := g.typeExpr(n.Elem, elemTag)
		if n.Shape == jsontype.Array && n.Length <= 8 {
			return "[" + strings.TrimSuffix(strings.Repeat(e+", ", n.Length), ", ") + "]"
		}
		return arrayOf(e)
	case jsontype.Map:
		return "Record<string, " + g.typeExpr(n.Elem, elemTag) + ">"
	case jsontype.Struct:
		if nodeName(n) == "" {
			return g.inlineObject(n)
		}
		return g.named(n)
	}
	return "unknown"
}

// arrayOf is e[], parenthesised when e is a union or intersection.
func arrayOf(e string) string {
	if strings.ContainsAny(e, "|&") {
		e = "(" + e + ")"
	}
	return e + "[]"
}

// inlineObject writes an unnamed object type in place: on one line when
// no member has documentation, else a member per line.
func (g *gen) inlineObject(n *jsontype.Node) string {
	var b strings.Builder
	if !g.opts.Compact {
		for _, f := range n.Fields {
			if len(fieldDoc(n, f)) > 0 {
				g.members(&b, n, n.Fields)
				return b.String()
			}
		}
	}
	b.WriteString("{ ")
	for _, f := range n.Fields {
		fmt.Fprintf(&b, "%s; ", g.member(f))
	}
	if n.Open {
		b.WriteString("[key: string]: unknown; ")
	}
	b.WriteString("}")
	return b.String()
}

// nodeName is the name a struct node is declared under: its Go type's,
// or its schema's ($defs entry or title); "" for an anonymous one.
func nodeName(n *jsontype.Node) string {
	if n.GoType != nil {
		if n.GoType.Name() == "" {
			return ""
		}
		return goName(n.GoType)
	}
	return identOnly(n.Name)
}

// typeKey identifies a named type across functions: its Go type, or for
// a schema its name and shape (each function's schema is its own
// document, so the same type arrives as different nodes).
func (g *gen) typeKey(n *jsontype.Node) any {
	if n.GoType != nil {
		return n.GoType
	}
	if n.Name == "" {
		return n
	}
	return "schema " + fingerprint(n, 0)
}

// fingerprint describes a schema node's structure; named objects below
// the top are written by name only, so recursion ends.
func fingerprint(n *jsontype.Node, depth int) string {
	if n == nil {
		return "-"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d", n.Shape)
	if n.Name != "" {
		b.WriteString("#" + n.Name)
		if depth > 0 {
			return b.String()
		}
	}
	if depth > 8 {
		return b.String()
	}
	fmt.Fprintf(&b, "%v%v%q%q%q", n.Rules, n.Enum, n.Format, n.Pattern, n.Default)
	for _, f := range n.Fields {
		fmt.Fprintf(&b, "{%s %v %q %s}", f.Name, f.Required, f.Doc, fingerprint(f.Node, depth+1))
	}
	for _, v := range n.Variants {
		b.WriteString("|" + fingerprint(v, depth+1))
	}
	for _, v := range n.Items {
		b.WriteString("," + fingerprint(v, depth+1))
	}
	b.WriteString("<" + fingerprint(n.Elem, depth+1) + ">")
	return b.String()
}

// named returns the declared name for named struct node n, queueing its
// declaration on first use.
func (g *gen) named(n *jsontype.Node) string {
	k := g.typeKey(n)
	if name, ok := g.names[k]; ok {
		return name
	}
	base := pascal(nodeName(n))
	name := base
	pkg := ""
	if n.GoType != nil {
		pkg = n.GoType.PkgPath()
	}
	if g.taken[name] {
		// Prefer the package name (store.Session → StoreSession) when the
		// clash is with another package; fall back to a number.
		if pkg != "" && !g.pkgTaken[name+" "+pkg] {
			name = pascal(identOnly(pkg[strings.LastIndexAny(pkg, "/.")+1:])) + base
		}
		for i := 2; g.taken[name]; i++ {
			name = base + strconv.Itoa(i)
		}
	}
	g.pkgTaken[base+" "+pkg] = true
	g.taken[name] = true
	g.names[k] = name
	g.pending = append(g.pending, n)
	return name
}

// goName turns a type name, including a generic instantiation such as
// "Page[example.com/store.Session]", into identifier parts: "PageSession".
func goName(t reflect.Type) string {
	n := t.Name()
	i := strings.IndexByte(n, '[')
	if i < 0 {
		return n
	}
	var b strings.Builder
	b.WriteString(n[:i])
	for _, arg := range strings.Split(strings.TrimSuffix(n[i+1:], "]"), ",") {
		arg = arg[strings.LastIndexAny(arg, "/.")+1:]
		b.WriteString(pascal(identOnly(arg)))
	}
	return b.String()
}

func oneOf(rules []jsontype.Rule) []string {
	for _, r := range rules {
		if r.Tag == "oneof" {
			return jsontype.OneOf(r.Param)
		}
	}
	return nil
}

func stringUnion(vals []string) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		q, _ := json.Marshal(v)
		parts[i] = string(q)
	}
	return strings.Join(parts, " | ")
}

func numberUnion(vals []string) string {
	parts := make([]string, 0, len(vals))
	for _, v := range vals {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return "number"
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, " | ")
}

// fieldDoc is the JSDoc of one member of struct node parent: its
// description, what its string format is, and its constraints as JSDoc
// tags, from the validate tag of a Go field or the rules of a schema.
func fieldDoc(parent *jsontype.Node, f jsontype.FieldNode) []string {
	var doc []string
	if d := strings.TrimSpace(f.Doc); d != "" {
		doc = append(doc, strings.Split(d, "\n")...) // a schema's description may have lines
	}
	t := f.Node
	for t.Shape == jsontype.Ptr {
		t = t.Elem
	}
	if t.Shape == jsontype.Bytes {
		doc = append(doc, "Base64-encoded bytes.")
	}
	if t.GoType == durationType {
		doc = append(doc, "Duration in nanoseconds.")
	}
	if f.Go != nil {
		rules, _ := jsontype.SplitValidate(f.Go.Validate)
		for _, r := range rules {
			if spec, ok := jsontype.LookupRule(r.Tag); ok {
				doc = append(doc, spec.Doc(t.GoType.Kind(), parent.MemberNames(r.Tag, r.Param))...)
			}
		}
		return doc
	}
	for _, r := range t.Rules {
		if spec, ok := jsontype.LookupRule(r.Tag); ok {
			doc = append(doc, spec.Doc(t.Kind(), r.Param)...)
		}
	}
	if t.Format != "" {
		doc = append(doc, "@format "+t.Format)
	}
	if t.Pattern != "" {
		doc = append(doc, "@pattern "+t.Pattern)
	}
	if len(f.Node.Default) > 0 {
		doc = append(doc, "@default "+string(f.Node.Default))
	} else if len(t.Default) > 0 {
		doc = append(doc, "@default "+string(t.Default))
	}
	return doc
}

// literalUnion writes enum values as a union of literals.
func literalUnion(vals []any) string {
	parts := make([]string, 0, len(vals))
	for _, v := range vals {
		q, _ := json.Marshal(v)
		if !slices.Contains(parts, string(q)) {
			parts = append(parts, string(q))
		}
	}
	return strings.Join(parts, " | ")
}

// writeDoc writes lines as a JSDoc comment; nothing for no lines.
func writeDoc(b *strings.Builder, indent string, lines []string) {
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return
	}
	if one, ok := oneLine(lines); ok {
		fmt.Fprintf(b, "%s/** %s */\n", indent, safeComment(one))
		return
	}
	fmt.Fprintf(b, "%s/**\n", indent)
	for _, l := range lines {
		if l == "" {
			fmt.Fprintf(b, "%s *\n", indent)
			continue
		}
		fmt.Fprintf(b, "%s * %s\n", indent, safeComment(l))
	}
	fmt.Fprintf(b, "%s */\n", indent)
}

// maxOneLine is the longest comment or member list written on one line.
const maxOneLine = 240

// oneLine joins a comment's lines into one sentence-separated line, the
// cheapest form for a reader paying per token, unless the comment has
// paragraphs or would be long.
func oneLine(lines []string) (string, bool) {
	n := 0
	for _, l := range lines {
		n += len(l) + 2
	}
	if n > maxOneLine {
		return "", false
	}
	return joinLines(lines)
}

// joinLines is oneLine without the length limit.
func joinLines(lines []string) (string, bool) {
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			return "", false
		}
	}
	parts := make([]string, len(lines))
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if i < len(lines)-1 && !strings.HasPrefix(l, "@") && !strings.HasSuffix(l, ".") && !strings.HasSuffix(l, "?") && !strings.HasSuffix(l, "!") {
			l += "."
		}
		parts[i] = l
	}
	return strings.Join(parts, " "), true
}

// safeComment keeps text from closing the comment early.
func safeComment(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, " \t\r"), "*/", "*\\/")
}

// propName quotes member names that are not identifiers.
func propName(s string) string {
	for i, r := range s {
		if !(r == '_' || r == '$' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			q, _ := json.Marshal(s)
			return string(q)
		}
	}
	if s == "" {
		return `""`
	}
	return s
}

// typeBase is the part of a function's name its Args and Result types
// start with: getSessions → GetSessions, open_nodes → OpenNodes.
func typeBase(name string) string {
	var b strings.Builder
	up := true
	for _, r := range name {
		if r == '_' || r == '-' || r == '$' {
			up = true
			continue
		}
		if up {
			r, up = unicode.ToUpper(r), false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// pascal upper-cases the first letter: getSessions → GetSessions.
func pascal(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}

// identOnly keeps the letters and digits of s.
func identOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, s)
}
