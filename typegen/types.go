package typegen

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

var durationType = reflect.TypeFor[time.Duration]()

// typeExpr returns the TypeScript type for t; tag is the validate tag that
// applies to t (its oneof rule becomes a union of literals, and the part
// after "dive" applies to elements).
func (g *gen) typeExpr(t reflect.Type, tag string) string {
	rules, elemTag := jsontype.SplitValidate(tag)
	switch sh := jsontype.ShapeOf(t, false); sh {
	case jsontype.Time:
		g.usedDateTime = true
		return "datetime"
	case jsontype.Text, jsontype.Bytes:
		return "string"
	case jsontype.Custom, jsontype.Any, jsontype.Unsupported:
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
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.typeExpr(t.Elem(), tag)
	case reflect.Slice, reflect.Array:
		e := g.typeExpr(t.Elem(), elemTag)
		if t.Kind() == reflect.Array && t.Len() <= 8 {
			return "[" + strings.TrimSuffix(strings.Repeat(e+", ", t.Len()), ", ") + "]"
		}
		if strings.ContainsAny(e, "|&") {
			e = "(" + e + ")"
		}
		return e + "[]"
	case reflect.Map:
		return "Record<string, " + g.typeExpr(t.Elem(), elemTag) + ">"
	case reflect.Struct:
		if t.Name() == "" {
			var b strings.Builder
			b.WriteString("{ ")
			for _, f := range jsontype.Fields(t) {
				opt := "?"
				if f.Required {
					opt = ""
				}
				fmt.Fprintf(&b, "%s%s: %s; ", propName(f.Name), opt, g.typeExpr(f.Type, f.Validate))
			}
			b.WriteString("}")
			return b.String()
		}
		return g.named(t)
	}
	return "unknown"
}

// named returns the declared name for named struct t, queueing its
// declaration on first use.
func (g *gen) named(t reflect.Type) string {
	if n, ok := g.names[t]; ok {
		return n
	}
	base := pascal(goName(t))
	name := base
	if g.taken[name] {
		// Prefer the package name (store.Session → StoreSession) when the
		// clash is with another package; fall back to a number.
		if pkg := t.PkgPath(); pkg != "" && !g.pkgTaken[name+" "+pkg] {
			name = pascal(identOnly(pkg[strings.LastIndexAny(pkg, "/.")+1:])) + base
		}
		for i := 2; g.taken[name]; i++ {
			name = base + strconv.Itoa(i)
		}
	}
	g.pkgTaken[base+" "+t.PkgPath()] = true
	g.taken[name] = true
	g.names[t] = name
	g.pending = append(g.pending, t)
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

// fieldDoc is the JSDoc of one member: its description, what its string
// format is, and its constraints as JSDoc tags.
func fieldDoc(parent reflect.Type, f jsontype.Field) []string {
	var doc []string
	if d := strings.TrimSpace(f.Doc); d != "" {
		doc = append(doc, d)
	}
	t := f.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch jsontype.ShapeOf(t, false) {
	case jsontype.Bytes:
		doc = append(doc, "Base64-encoded bytes.")
	}
	if t == durationType {
		doc = append(doc, "Duration in nanoseconds.")
	}
	rules, _ := jsontype.SplitValidate(f.Validate)
	for _, r := range rules {
		if spec, ok := jsontype.LookupRule(r.Tag); ok {
			doc = append(doc, spec.Doc(t.Kind(), jsontype.MemberNames(parent, r.Tag, r.Param))...)
		}
	}
	return doc
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
