package jsontype

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/brakinglab/codemode-go/internal/jsonvalue"
)

// FromSchema builds the node of a JSON Schema (draft 2020-12 or draft-07,
// as MCP servers emit them). It reads the schema in its source order, so
// members keep the order their author gave them.
//
// What the model cannot show becomes Shape Any rather than an error: not,
// if/then/else, patternProperties, a $ref outside the document (which
// the catalog refuses, as its validator never fetches one), a type list
// of several non-null types. Such keywords are still enforced by the
// schema validator the caller runs after the node check; only the
// declaration says less. Local $ref (#, #/$defs/…, #/definitions/…) are
// followed, and a recursive one becomes a cycle in the node graph, never
// a loop. Errors are for schemas that are not JSON objects or booleans,
// a $ref that points nowhere, and a required member listed twice.
//
// complete reports whether the node states every constraint of the
// schema, so that a value that passes the node check and its rules also
// passes a JSON Schema validator; when it is false, the caller must run
// one.
func FromSchema(schema []byte) (n *Node, complete bool, err error) {
	v, err := jsonvalue.Parse(schema, true)
	if err != nil {
		return nil, false, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	b := &schemaBuilder{root: v, memo: map[string]*Node{}}
	if _, isObj := v.(*ordered); !isObj {
		n, err = b.build(v, "#")
		return n, !b.partial, err
	}
	n, err = b.ref("#", "#") // the root is what "$ref": "#" means
	if n != nil && n.Shape == Unsupported {
		n.Shape = Any // a root that is only a reference to itself
	}
	return n, !b.partial, err
}

// modeled lists the keywords a node states completely (with the
// conditions checked where they are read); any other keyword makes the
// node partial. format and the annotations do not constrain values.
var modeled = map[string]bool{
	"$schema": true, "$id": true, "$ref": true, "$defs": true, "definitions": true, "$comment": true,
	"title": true, "description": true, "default": true, "examples": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"type": true, "enum": true, "const": true, "format": true, "contentEncoding": true, "contentMediaType": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"minLength": true, "maxLength": true,
	"items": true, "prefixItems": true, "additionalItems": true, "minItems": true, "maxItems": true, "uniqueItems": true,
	"properties": true, "required": true, "additionalProperties": true, "minProperties": true, "maxProperties": true,
	"anyOf": true, "oneOf": true, "allOf": true, // modeled only in part: see composite
}

// ordered is a JSON object that remembers its member order, as the
// library's one JSON reader gives it.
type ordered = jsonvalue.Object

type schemaBuilder struct {
	root    any
	memo    map[string]*Node // by $ref target pointer
	partial bool             // some keyword is left to a schema validator
}

// build returns the node of schema s found at JSON pointer at.
func (b *schemaBuilder) build(s any, at string) (*Node, error) {
	switch s := s.(type) {
	case bool:
		return &Node{Shape: Any}, nil
	case *ordered:
		return b.object(s, at)
	}
	return nil, fmt.Errorf("%s: a schema must be an object or a boolean", at)
}

func (b *schemaBuilder) object(s *ordered, at string) (*Node, error) {
	for _, k := range s.Keys {
		if !modeled[k] {
			b.partial = true
		}
	}
	if types := b.types(s); len(slices.DeleteFunc(types, func(t string) bool { return t == "null" })) > 1 {
		b.partial = true // the variants are not checked one by one
	}
	if _, typed := s.M["type"]; typed {
		for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
			if _, ok := s.M[kw]; ok {
				b.partial = true // read only without a type
			}
		}
	}
	if ref := s.Str("$ref"); ref != "" {
		if len(s.Keys) > 1 && !onlyAnnotations(s) {
			b.partial = true // constraints beside $ref
		}
		// Siblings of $ref (a description) document this use: the caller
		// reads them; the node is the target's, shared by every use.
		return b.ref(ref, at)
	}
	n := &Node{Doc: s.Str("description")}
	if d, ok := s.Get("default"); ok {
		n.Default, _ = json.Marshal(plain(d))
	}
	types := b.types(s)
	nullable := slices.Contains(types, "null")
	types = slices.DeleteFunc(types, func(t string) bool { return t == "null" })
	switch {
	case len(types) == 1:
		if err := b.typed(n, s, types[0], at); err != nil {
			return nil, err
		}
	case len(types) > 1:
		n.Shape = Any
		for _, t := range types {
			v := &Node{}
			if err := b.typed(v, s, t, at); err != nil {
				return nil, err
			}
			n.Variants = append(n.Variants, v)
		}
	default:
		if err := b.composite(n, s, at); err != nil {
			return nil, err
		}
	}
	if vals, ok := enum(s); ok {
		n.Enum = vals
	} else if _, has := s.M["enum"]; has {
		b.partial = true
	} else if _, has := s.M["const"]; has {
		b.partial = true
	}
	if len(types) == 0 && n.Shape == Any && len(n.Variants) == 0 && len(n.Enum) == 0 && len(s.Keys) > 0 && !onlyAnnotations(s) {
		b.partial = true // e.g. minimum without a type
	}
	if len(types) == 1 && n.Shape == Any {
		b.partial = true // "type": "null"
	}
	if nullable {
		return &Node{Shape: Ptr, Elem: n, Doc: n.Doc, Default: n.Default}, nil
	}
	return n, nil
}

// types lists the schema's types: its "type", or the one implied by
// properties/items, or none.
func (b *schemaBuilder) types(s *ordered) []string {
	switch t := s.M["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if e, ok := e.(string); ok {
				out = append(out, e)
			}
		}
		return out
	}
	if _, ok := s.Get("properties"); ok {
		return []string{"object"}
	}
	return nil
}

// composite handles a schema without a type: oneOf/anyOf/allOf, const
// and enum, or nothing at all (any JSON).
func (b *schemaBuilder) composite(n *Node, s *ordered, at string) error {
	n.Shape = Any
	if _, has := s.M["allOf"]; has {
		if all, _ := s.M["allOf"].([]any); len(all) != 1 {
			b.partial = true
		}
	}
	if all, ok := s.M["allOf"].([]any); ok && len(all) == 1 {
		e, err := b.build(all[0], at+"/allOf/0")
		if err != nil {
			return err
		}
		doc := n.Doc
		*n = *e
		if doc != "" {
			n.Doc = doc
		}
		return nil
	}
	for _, kw := range []string{"oneOf", "anyOf"} {
		alts, ok := s.M[kw].([]any)
		if !ok {
			continue
		}
		var vs []*Node
		null := false
		for i, a := range alts {
			if o, isObj := a.(*ordered); isObj && o.Str("type") == "null" && len(o.Keys) == 1 {
				null = true
				continue
			}
			v, err := b.build(a, fmt.Sprintf("%s/%s/%d", at, kw, i))
			if err != nil {
				return err
			}
			vs = append(vs, v)
		}
		if len(vs) != 1 || !null {
			b.partial = true // the alternatives are left to the validator
		}
		switch {
		case null && len(vs) == 1:
			n.Shape, n.Elem = Ptr, vs[0]
		case null:
			n.Shape, n.Elem = Ptr, &Node{Shape: Any, Variants: vs}
		default:
			n.Variants = vs
		}
		return nil
	}
	if vals, ok := enum(s); ok && len(vals) > 0 {
		switch vals[0].(type) {
		case string:
			n.Shape = String
		case json.Number:
			n.Shape, n.Bits = Float, 64
		case bool:
			n.Shape = Bool
		}
		for _, v := range vals[1:] {
			if fmt.Sprintf("%T", v) != fmt.Sprintf("%T", vals[0]) {
				n.Shape = Any
			}
		}
	}
	return nil
}

// ref follows a local reference, memoised by target so that recursion
// ends in a cycle.
func (b *schemaBuilder) ref(ref, at string) (*Node, error) {
	if !strings.HasPrefix(ref, "#") {
		return &Node{Shape: Any}, nil // external: left to the validator
	}
	if n, ok := b.memo[ref]; ok {
		return n, nil
	}
	target, err := b.resolve(ref)
	if err != nil {
		return nil, fmt.Errorf("%s: $ref %q: %w", at, ref, err)
	}
	n := &Node{}
	b.memo[ref] = n
	built, err := b.build(target, ref)
	if err != nil {
		return nil, err
	}
	*n = *built
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		name, ok = strings.CutPrefix(ref, "#/definitions/")
	}
	if ok && !strings.Contains(name, "/") {
		t := n
		if t.Shape == Ptr {
			t = t.Elem
		}
		t.Name = name
	}
	return n, nil
}

func (b *schemaBuilder) resolve(ref string) (any, error) {
	cur := b.root
	p := strings.TrimPrefix(ref, "#")
	if p == "" {
		return cur, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, errors.New("only JSON-pointer references are supported")
	}
	for _, tok := range strings.Split(p[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case *ordered:
			v, ok := c.M[tok]
			if !ok {
				return nil, errors.New("it points nowhere")
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, errors.New("it points nowhere")
			}
			cur = c[i]
		default:
			return nil, errors.New("it points nowhere")
		}
	}
	return cur, nil
}

func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
