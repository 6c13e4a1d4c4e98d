package typegen

import (
	"fmt"
	"strings"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// Object types: a signature's arguments and result, interfaces for
// named structs, and the members between their braces.

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
