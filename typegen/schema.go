package typegen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// InputSchema returns a JSON Schema (draft 2020-12) for f's arguments,
// following the same rules as the declarations: required members,
// enums from oneof, bounds from min/max, and "additionalProperties": false
// at every level for MUTATING and CREATIVE functions, whose decoding
// rejects unknown fields. Named structs are placed in "$defs". One
// difference remains: a validate tag starting with omitempty lets the zero
// value skip its bounds, which the schema does not express.
//
// For a function registered with catalog.AddSchema it returns the schema
// the function was given, unchanged (draft 2020-12 or draft-07).
func InputSchema(f catalog.FuncInfo) (json.RawMessage, error) {
	if f.In == nil && f.InputSchema != nil {
		return f.InputSchema, nil
	}
	in, _, err := nodesOf(f)
	if err != nil {
		return nil, err
	}
	s := newSchemaGen(f.Tier.Strict())
	root := s.schema(in, "", true)
	if f.Tier.Strict() {
		root["properties"] = append(root["properties"].(properties), property{catalog.ValidateOnlyKey, map[string]any{
			"type": "boolean", "description": "Dry run: validate only; nothing is changed.",
		}})
	}
	return s.finish(root, f.Description)
}

// OutputSchema returns a JSON Schema (draft 2020-12) for f's result. A
// named struct result is titled with the name its declaration has, and a
// pointer result may be null. For a function registered with
// catalog.AddSchema it returns the output schema the function was given,
// or {} (any JSON) when it has none.
func OutputSchema(f catalog.FuncInfo) (json.RawMessage, error) {
	if f.Out == nil && f.InputSchema != nil {
		if f.OutputSchema == nil {
			return json.RawMessage(`{}`), nil
		}
		return f.OutputSchema, nil
	}
	if f.Out == nil {
		return nil, fmt.Errorf("typegen: %s: no result type", f.Name)
	}
	_, out, err := nodesOf(f)
	if err != nil {
		return nil, err
	}
	s := newSchemaGen(false)
	root := s.schema(out, "", true)
	t := out
	for t.Shape == jsontype.Ptr {
		t = t.Elem
	}
	if name := nodeName(t); name != "" && t.GoType != nil && t.GoType.Kind() == reflect.Struct {
		root["title"] = pascal(name)
	}
	if out.Shape == jsontype.Ptr {
		if typ, ok := root["type"].(string); ok {
			root["type"] = []string{typ, "null"}
		}
	}
	return s.finish(root, "")
}

type schemaGen struct {
	strict bool
	names  map[*jsontype.Node]string // by the node of a Go struct, one per type
	taken  map[string]bool
	defs   map[string]any
}

func newSchemaGen(strict bool) *schemaGen {
	return &schemaGen{strict: strict, names: map[*jsontype.Node]string{}, taken: map[string]bool{}, defs: map[string]any{}}
}

func (s *schemaGen) finish(root map[string]any, description string) (json.RawMessage, error) {
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	if description != "" {
		root["description"] = description
	}
	if len(s.defs) > 0 {
		root["$defs"] = s.defs
	}
	return json.Marshal(root)
}

// schema returns the schema of Go-built node n, read from the type model
// the declarations are rendered from; tag is the validate tag applying to
// n. inline asks for a struct's body rather than a $ref, for the root.
func (s *schemaGen) schema(n *jsontype.Node, tag string, inline bool) map[string]any {
	rules, elemTag := jsontype.SplitValidate(tag)
	out := map[string]any{}
	switch n.Shape {
	case jsontype.Time:
		return map[string]any{"type": "string", "format": "date-time"}
	case jsontype.Custom, jsontype.Any, jsontype.Unsupported:
		return out
	case jsontype.Text:
		return map[string]any{"type": "string"}
	case jsontype.Bytes:
		return map[string]any{"type": "string", "contentEncoding": "base64"}
	case jsontype.Bool:
		out["type"] = "boolean"
	case jsontype.Int, jsontype.Uint:
		out["type"] = "integer"
	case jsontype.Float:
		out["type"] = "number"
	case jsontype.String:
		out["type"] = "string"
	case jsontype.Ptr:
		return s.schema(n.Elem, tag, inline)
	case jsontype.Slice, jsontype.Array:
		out["type"] = "array"
		out["items"] = s.schema(n.Elem, elemTag, false)
		if n.Shape == jsontype.Array {
			out["minItems"], out["maxItems"] = n.Length, n.Length
		}
	case jsontype.Map:
		out["type"] = "object"
		out["additionalProperties"] = s.schema(n.Elem, elemTag, false)
	case jsontype.Struct:
		if nodeName(n) != "" && !inline {
			return map[string]any{"$ref": "#/$defs/" + s.def(n)}
		}
		return s.object(n)
	}
	applyRules(out, n.Kind(), rules)
	return out
}

// def returns the $defs name of named struct node n, building it on
// first use.
func (s *schemaGen) def(n *jsontype.Node) string {
	if name, ok := s.names[n]; ok {
		return name
	}
	base := pascal(nodeName(n))
	name := base
	for i := 2; s.taken[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	s.taken[name] = true
	s.names[n] = name
	s.defs[name] = map[string]any{} // placeholder for recursive types
	s.defs[name] = s.object(n)
	return name
}

func (s *schemaGen) object(n *jsontype.Node) map[string]any {
	props := properties{}
	required := []string{}
	for _, f := range n.Fields {
		p := s.schema(f.Node, f.Go.Validate, false)
		if d := crossMemberRules(n, *f.Go); d != "" {
			p["description"] = joinSentences(p["description"], d)
		}
		if f.Doc != "" {
			// Beside $ref too: allowed since draft 2019-09.
			rule, _ := p["description"].(string)
			p["description"] = joinSentences(f.Doc, rule)
		}
		props = append(props, property{f.Name, p})
		if f.Required {
			required = append(required, f.Name)
		}
	}
	out := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		out["required"] = required
	}
	if s.strict {
		out["additionalProperties"] = false
	}
	return out
}

// applyRules adds the keywords of each validate rule, from the same table
// the declarations' JSDoc and the catalog's messages come from. A rule with
// no keyword adds its message to the description, so the schema still
// states it.
func applyRules(out map[string]any, k reflect.Kind, rules []jsontype.Rule) {
	for _, r := range rules {
		spec, ok := jsontype.LookupRule(r.Tag)
		if !ok || spec.Presence || jsontype.CrossMember(r.Tag) { // cross-member: see object
			continue
		}
		kws := spec.SchemaKeywords(k, r.Param)
		for _, kw := range kws {
			out[kw.Name] = kw.Value
		}
		if len(kws) == 0 {
			out["description"] = joinSentences(out["description"], spec.Message(k, r.Param)+".")
		}
	}
}

func joinSentences(prev any, s string) string {
	p, _ := prev.(string)
	switch {
	case p == "":
		return s
	case s == "":
		return p
	}
	return p + " " + s
}

// crossMemberRules states the rules of member f that name its siblings in
// struct node n (required_without…), which the member's own schema cannot.
func crossMemberRules(n *jsontype.Node, f jsontype.Field) string {
	var d string
	rules, _ := jsontype.SplitValidate(f.Validate)
	for _, r := range rules {
		if jsontype.CrossMember(r.Tag) {
			spec, _ := jsontype.LookupRule(r.Tag)
			d = joinSentences(d, spec.Message(f.Type.Kind(), n.MemberNames(r.Tag, r.Param))+".")
		}
	}
	return d
}

// properties is a schema's "properties" in the order of the struct's
// fields, which is the order declarations list them in.
type properties []property

type property struct {
	name   string
	schema map[string]any
}

// MarshalJSON writes the members in order.
func (ps properties) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(p.name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(p.schema)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
