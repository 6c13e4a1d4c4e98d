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
	if len(schema) > MaxSchemaBytes {
		return nil, false, fmt.Errorf("#: the schema is %d bytes (the limit is %d)", len(schema), MaxSchemaBytes)
	}
	v, err := jsonvalue.Parse(schema, true)
	if err != nil {
		return nil, false, fmt.Errorf("not valid JSON: %w", err)
	}
	if err := checkLoops(v); err != nil {
		return nil, false, err
	}
	cut := map[string]bool{}
	for range 4 {
		b := &schemaBuilder{root: v, memo: map[string]*Node{}, building: map[*Node]bool{}, recursive: map[string]bool{}, cut: cut}
		if n, err = b.start(); err != nil {
			return nil, false, err
		}
		if b.recursion() {
			if err := expansion(n); err != nil {
				return nil, false, err
			}
			return n, !b.partial, nil
		}
		// Some recursion passes through no object: build again, writing
		// those references as unknown where they recur.
	}
	return nil, false, errors.New("#: the schema's recursion cannot be modeled")
}

// start builds the root: for an object, as the target of "$ref": "#".
func (b *schemaBuilder) start() (*Node, error) {
	if _, isObj := b.root.(*ordered); !isObj {
		return b.build(b.root, "#")
	}
	n, err := b.ref("#", "#") // the root is what "$ref": "#" means
	if n != nil && n.Shape == Unsupported {
		n.Shape = Any // a root that is only a reference to itself
	}
	return n, err
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
	depth   int              // subschemas being built, nested
	nodes   int              // subschemas built

	building  map[*Node]bool  // the nodes of references still being built
	recursive map[string]bool // references met again while being built
	cut       map[string]bool // recursive references through no object: unknown where they recur
}

// build returns the node of schema s found at JSON pointer at.
func (b *schemaBuilder) build(s any, at string) (*Node, error) {
	if b.depth++; b.depth > MaxSchemaDepth {
		return nil, tooBig(at, "nests too deeply", MaxSchemaDepth)
	}
	defer func() { b.depth-- }()
	if b.nodes++; b.nodes > MaxSchemaNodes {
		return nil, tooBig(at, "has too many subschemas", MaxSchemaNodes)
	}
	switch s := s.(type) {
	case bool:
		return &Node{Shape: Any}, nil
	case *ordered:
		return b.object(s, at)
	}
	return nil, fmt.Errorf("%s: a schema must be an object or a boolean", shortPointer(at))
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
		if b.building[e] {
			e = b.recurs(at + "/allOf/0") // a copy of a node still being built would be empty
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
		if b.building[n] {
			b.recursive[ref] = true
			if b.cut[ref] {
				return b.recurs(ref), nil
			}
		}
		return n, nil
	}
	target, err := b.resolve(ref)
	if err != nil {
		return nil, fmt.Errorf("%s: $ref %q: %w", shortPointer(at), ref, err)
	}
	n := &Node{}
	b.memo[ref] = n
	b.building[n] = true
	built, err := b.build(target, ref)
	delete(b.building, n)
	if err != nil {
		return nil, err
	}
	if b.building[built] {
		// This reference only renames one still being built (a $ref to
		// a $ref that encloses it): a copy would be empty.
		built = b.recurs(ref)
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

// recurs is the node written where a recursive type that passes through
// no object recurs: any JSON, with a note, left to the schema validator.
func (b *schemaBuilder) recurs(ref string) *Node {
	b.partial = true
	return &Node{Shape: Any, Note: "recursive: the same type as " + ref + " again, not written out"}
}

// recursion settles the references met again while being built. One
// that is an object (or a nullable object) keeps its cycle, and gets a
// name if it has none so that declarations can refer to it; it reports
// false when some other one recurs (an array of itself, a record of
// itself), which must be cut: the caller builds again with b.cut set.
// So every cycle among the nodes passes through a named Struct, and a
// walk that treats named objects as declared once always ends.
func (b *schemaBuilder) recursion() bool {
	ok := true
	for ref := range b.recursive {
		t := b.memo[ref]
		for i := 0; i < 4 && t.Shape == Ptr && t.Elem != nil; i++ {
			t = t.Elem
		}
		switch {
		case t.Shape == Struct && t.Name == "":
			t.Name = refName(ref)
		case t.Shape != Struct && !b.cut[ref]:
			b.cut[ref] = true
			ok = false
		}
	}
	return ok
}

// refName makes a name for an unnamed recursive object from the pointer
// that reaches it: its last step that is not a keyword ("#/properties/
// child" → "child"), or "Root".
func refName(ref string) string {
	steps := strings.Split(strings.TrimPrefix(ref, "#"), "/")
	for i := len(steps) - 1; i >= 0; i-- {
		s := strings.ReplaceAll(strings.ReplaceAll(steps[i], "~1", "/"), "~0", "~")
		if _, err := strconv.Atoi(s); err == nil || s == "" || keyword[s] {
			continue
		}
		return s
	}
	return "Root"
}

// keyword lists the keywords that hold subschemas, which a name made
// from a pointer skips.
var keyword = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range [][]string{inPlace, subschemaMaps, subschemaLists, subschemaSingle} {
		for _, k := range l {
			m[k] = true
		}
	}
	return m
}()

func (b *schemaBuilder) resolve(ref string) (any, error) {
	return resolvePointer(b.root, ref)
}

func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
