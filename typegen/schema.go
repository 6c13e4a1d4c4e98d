package typegen

import (
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
func InputSchema(f catalog.FuncInfo) (json.RawMessage, error) {
	if f.In == nil || f.In.Kind() != reflect.Struct {
		return nil, fmt.Errorf("typegen: %s: argument type %v is not a struct", f.Name, f.In)
	}
	s := newSchemaGen(f.Tier.Strict())
	root := s.schema(f.In, "", true)
	if f.Tier.Strict() {
		root["properties"].(map[string]any)["_validateOnly"] = map[string]any{
			"type": "boolean", "description": "Dry run: validate only; nothing is changed.",
		}
	}
	return s.finish(root, f.Description)
}

// OutputSchema returns a JSON Schema (draft 2020-12) for f's result.
func OutputSchema(f catalog.FuncInfo) (json.RawMessage, error) {
	if f.Out == nil {
		return nil, fmt.Errorf("typegen: %s: no result type", f.Name)
	}
	s := newSchemaGen(false)
	return s.finish(s.schema(f.Out, "", true), "")
}

type schemaGen struct {
	strict bool
	names  map[reflect.Type]string
	taken  map[string]bool
	defs   map[string]any
}

func newSchemaGen(strict bool) *schemaGen {
	return &schemaGen{strict: strict, names: map[reflect.Type]string{}, taken: map[string]bool{}, defs: map[string]any{}}
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

// schema returns the schema of t; tag is the validate tag applying to t.
// inline asks for a struct's body rather than a $ref, for the root.
func (s *schemaGen) schema(t reflect.Type, tag string, inline bool) map[string]any {
	rules, elemTag := jsontype.SplitValidate(tag)
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == rawMessageType:
		return map[string]any{}
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && implements(t, jsonMarshalerType):
		return map[string]any{}
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && implements(t, textMarshalerType):
		return map[string]any{"type": "string"}
	}
	out := map[string]any{}
	switch t.Kind() {
	case reflect.Bool:
		out["type"] = "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		out["type"] = "integer"
	case reflect.Float32, reflect.Float64:
		out["type"] = "number"
	case reflect.String:
		out["type"] = "string"
	case reflect.Pointer:
		return s.schema(t.Elem(), tag, inline)
	case reflect.Interface:
		return out
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && !implements(t.Elem(), jsonMarshalerType) && !implements(t.Elem(), textMarshalerType) {
			return map[string]any{"type": "string", "contentEncoding": "base64"}
		}
		out["type"] = "array"
		out["items"] = s.schema(t.Elem(), elemTag, false)
		if t.Kind() == reflect.Array {
			out["minItems"], out["maxItems"] = t.Len(), t.Len()
		}
	case reflect.Map:
		out["type"] = "object"
		out["additionalProperties"] = s.schema(t.Elem(), elemTag, false)
	case reflect.Struct:
		if t.Name() != "" && !inline {
			return map[string]any{"$ref": "#/$defs/" + s.def(t)}
		}
		return s.object(t)
	}
	applyRules(out, t, rules)
	return out
}

// def returns the $defs name of named struct t, building it on first use.
func (s *schemaGen) def(t reflect.Type) string {
	if n, ok := s.names[t]; ok {
		return n
	}
	base := pascal(goName(t))
	name := base
	for i := 2; s.taken[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	s.taken[name] = true
	s.names[t] = name
	s.defs[name] = map[string]any{} // placeholder for recursive types
	s.defs[name] = s.object(t)
	return name
}

func (s *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, f := range jsontype.Fields(t) {
		p := s.schema(f.Type, f.Validate, false)
		if f.Doc != "" {
			p["description"] = f.Doc // beside $ref too: allowed since draft 2019-09
		}
		props[f.Name] = p
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

// applyRules adds enum, bounds and format keywords for validate rules.
func applyRules(out map[string]any, t reflect.Type, rules []jsontype.Rule) {
	kind := "number"
	switch t.Kind() {
	case reflect.String:
		kind = "string"
	case reflect.Slice, reflect.Array, reflect.Map:
		kind = "array"
	}
	num := func(p string) any {
		if i, err := strconv.Atoi(p); err == nil {
			return i
		}
		if f, err := strconv.ParseFloat(p, 64); err == nil {
			return f
		}
		return p
	}
	for _, r := range rules {
		switch r.Tag {
		case "oneof":
			vals := jsontype.OneOf(r.Param)
			enum := make([]any, len(vals))
			for i, v := range vals {
				if kind == "number" {
					enum[i] = num(v)
				} else {
					enum[i] = v
				}
			}
			out["enum"] = enum
		case "min", "gte", "max", "lte":
			prefix := r.Tag[:3] // "min" or "max"; gte and lte are spelled alike below
			if r.Tag == "gte" {
				prefix = "min"
			} else if r.Tag == "lte" {
				prefix = "max"
			}
			switch {
			case kind == "string":
				out[prefix+"Length"] = num(r.Param)
			case t.Kind() == reflect.Map:
				out[prefix+"Properties"] = num(r.Param)
			case kind == "array":
				out[prefix+"Items"] = num(r.Param)
			default:
				out[prefix+"imum"] = num(r.Param)
			}
		case "gt":
			if kind == "number" {
				out["exclusiveMinimum"] = num(r.Param)
			}
		case "lt":
			if kind == "number" {
				out["exclusiveMaximum"] = num(r.Param)
			}
		case "email":
			out["format"] = "email"
		case "url", "http_url", "uri":
			out["format"] = "uri"
		case "uuid", "uuid4", "uuid_rfc4122", "uuid4_rfc4122":
			out["format"] = "uuid"
		}
	}
}
