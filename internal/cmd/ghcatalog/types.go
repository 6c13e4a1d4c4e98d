package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Go types for the OpenAPI schemas: struct fields with their tags and
// documentation, names made unique and exported.

type field struct {
	goName, jsonName, typ, doc, validate string
	required                             bool
}

func (g *gen) field(owner, jsonName string, s *schema, required bool, doc string) field {
	if doc == "" {
		doc = s.Description
		if s.Ref != "" {
			doc = ""
		}
	}
	f := field{goName: pascal(jsonName), jsonName: jsonName, doc: fieldDoc(doc), required: required}
	f.typ = g.goType(owner+pascal(jsonName), s)
	r := g.resolve(s)
	var rules []string
	if required {
		if f.typ == "bool" {
			f.typ = "*bool" // a required false must still count as given
		}
		rules = append(rules, "required")
	} else {
		rules = append(rules, "omitempty")
		switch {
		case f.typ == "bool" || f.typ == "int64" || f.typ == "float64" || f.typ == "string":
			f.typ = "*" + f.typ // optional: absent is not the zero value
		}
	}
	if vals := enumValues(r); vals != "" && strings.TrimPrefix(f.typ, "*") == "string" {
		rules = append(rules, "oneof="+vals)
	}
	base := strings.TrimPrefix(f.typ, "*")
	if base == "int64" || base == "float64" {
		if r.Minimum != nil {
			rules = append(rules, fmt.Sprintf("min=%v", *r.Minimum))
		}
		if r.Maximum != nil {
			rules = append(rules, fmt.Sprintf("max=%v", *r.Maximum))
		}
	}
	if base == "string" && r.MaxLength != nil {
		rules = append(rules, fmt.Sprintf("max=%d", *r.MaxLength))
	}
	if len(rules) == 1 && rules[0] == "omitempty" {
		rules = nil
	}
	f.validate = strings.Join(rules, ",")
	return f
}

// enumValues returns a oneof parameter, or "" when a value cannot be
// written in one (spaces, commas, bars, empty strings).
func enumValues(s *schema) string {
	if len(s.Enum) == 0 {
		return ""
	}
	var vals []string
	for _, v := range s.Enum {
		str, ok := v.(string)
		if !ok || str == "" || strings.ContainsAny(str, " ,|'\"`=") {
			return ""
		}
		vals = append(vals, str)
	}
	return strings.Join(vals, " ")
}

func (g *gen) resolve(s *schema) *schema {
	for i := 0; s != nil && s.Ref != "" && i < 10; i++ {
		s = g.sp.Components.Schemas[strings.TrimPrefix(s.Ref, "#/components/schemas/")]
	}
	if s == nil {
		return &schema{}
	}
	if len(s.AllOf) > 0 {
		merged := &schema{Type: "object", Properties: map[string]*schema{}, Description: s.Description}
		for _, part := range s.AllOf {
			p := g.resolve(part)
			for k, v := range p.Properties {
				merged.Properties[k] = v
			}
			merged.Required = append(merged.Required, p.Required...)
		}
		return merged
	}
	return s
}

func typeOf(s *schema) string {
	switch t := s.Type.(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok && str != "null" {
				return str
			}
		}
	}
	if len(s.Properties) > 0 {
		return "object"
	}
	return ""
}

// goType returns the Go type for s, declaring structs as needed; name is
// the type's name when s is an inline object.
func (g *gen) goType(name string, s *schema) string {
	if s == nil {
		return "any"
	}
	if s.Ref != "" {
		ref := strings.TrimPrefix(s.Ref, "#/components/schemas/")
		if n, ok := g.byRef[ref]; ok {
			return n
		}
		r := g.resolve(s)
		if typeOf(r) != "object" || len(r.Properties) == 0 {
			return g.goType(pascal(ref), r)
		}
		n := g.unique(pascal(ref))
		g.byRef[ref] = n
		g.objectStruct(n, r)
		return n
	}
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		return "any"
	}
	r := g.resolve(s)
	switch typeOf(r) {
	case "string":
		return "string"
	case "integer":
		return "int64"
	case "number":
		return "float64"
	case "boolean":
		return "bool"
	case "array":
		if r.Items == nil {
			return "[]any"
		}
		return "[]" + strings.TrimPrefix(g.goType(name+"Item", r.Items), "*")
	case "object":
		if len(r.Properties) == 0 {
			if ap, ok := r.AdditionalProperties.(map[string]any); ok && len(ap) > 0 {
				b, _ := json.Marshal(ap)
				var as schema
				_ = json.Unmarshal(b, &as)
				return "map[string]" + g.goType(name+"Value", &as)
			}
			return "map[string]any"
		}
		if g.depth > 6 {
			return "map[string]any"
		}
		n := g.unique(name)
		g.objectStruct(n, r)
		return n
	}
	return "any"
}

// objectStruct declares struct name for object schema s. Results keep
// every member optional: the API omits members freely.
func (g *gen) objectStruct(name string, s *schema) {
	g.depth++
	defer func() { g.depth-- }()
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	var fields []field
	for _, k := range sortedKeys(s.Properties) {
		fields = append(fields, g.field(name, k, s.Properties[k], req[k], ""))
	}
	g.writeStruct(name, fields)
}

func (g *gen) writeStruct(name string, fields []field) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s is generated from the GitHub REST API description.\ntype %s struct {\n", name, name)
	used := map[string]bool{}
	for _, f := range fields {
		gn := f.goName
		for i := 2; used[gn] || gn == ""; i++ {
			gn = f.goName + fmt.Sprint(i)
		}
		used[gn] = true
		tag := fmt.Sprintf("json:%q", f.jsonName+omit(f))
		if f.doc != "" {
			tag += fmt.Sprintf(" jsonschema:%q", f.doc)
		}
		if f.validate != "" {
			tag += fmt.Sprintf(" validate:%q", f.validate)
		}
		fmt.Fprintf(&b, "\t%s %s `%s`\n", gn, f.typ, tag)
	}
	b.WriteString("}\n\n")
	g.types.Write(b.Bytes())
}

func omit(f field) string {
	if f.required {
		return ""
	}
	return ",omitempty"
}

func (g *gen) unique(name string) string {
	n := name
	for i := 2; g.declared[n]; i++ {
		n = fmt.Sprintf("%s%d", name, i)
	}
	g.declared[n] = true
	return n
}

func sortedKeys(m map[string]*schema) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// pascal turns "issues/list-for-repo" or "+1" into a Go identifier:
// IssuesListForRepo, Plus1.
func pascal(s string) string {
	s = strings.NewReplacer("+", " plus ", "-", " ", "/", " ", "_", " ", ".", " ", "@", " ", "$", " ").Replace(s)
	var b strings.Builder
	for _, w := range strings.Fields(s) {
		rs := []rune(w)
		rs[0] = unicode.ToUpper(rs[0])
		for _, r := range rs {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				b.WriteRune(r)
			}
		}
	}
	out := b.String()
	if out == "" || unicode.IsDigit(rune(out[0])) {
		out = "X" + out
	}
	return out
}

func lowerFirst(s string) string {
	rs := []rune(s)
	rs[0] = unicode.ToLower(rs[0])
	return string(rs)
}
