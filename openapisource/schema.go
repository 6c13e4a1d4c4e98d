package openapisource

// OpenAPI schemas become JSON Schema (draft 2020-12) for the catalogue:
// components become $defs, so a recursive schema stays a $ref cycle; the
// OpenAPI-only keywords are translated or dropped.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

const componentPrefix = "#/components/schemas/"

// errSchemaTooLarge says a function's schema passed Options.MaxSchemaNodes.
var errSchemaTooLarge = errors.New("schema too large")

// converter turns the schemas of one document into JSON Schema,
// remembering each component it converted and the components it refers
// to, so that a function's $defs holds exactly what its schema reaches.
type converter struct {
	components map[string]*openapi3.SchemaRef
	defs       map[string]map[string]any // converted components
	deps       map[string][]string       // component → components it refers to
	nodes      map[string]int            // component → nodes in its own conversion
	maxNodes   int
}

func newConverter(doc *openapi3.T, maxNodes int) *converter {
	c := &converter{defs: map[string]map[string]any{}, deps: map[string][]string{}, nodes: map[string]int{}, maxNodes: maxNodes}
	if doc.Components != nil {
		c.components = doc.Components.Schemas
	}
	return c
}

// walk is one conversion: the components it refers to, the nodes it
// made, and the inlined schemas on its path (a cycle that does not go
// through a component).
type walk struct {
	c     *converter
	refs  []string
	nodes int
	path  map[*openapi3.Schema]bool
}

// root converts s and returns it with the $defs it reaches, and the
// number of schema nodes in all of it.
func (c *converter) root(s *openapi3.SchemaRef) (map[string]any, error) {
	w := &walk{c: c, path: map[*openapi3.Schema]bool{}}
	out := w.ref(s)
	if w.nodes > c.maxNodes {
		return nil, errSchemaTooLarge
	}
	total := w.nodes
	seen := map[string]bool{}
	queue := w.refs
	defs := map[string]any{}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		def, err := c.component(name)
		if err != nil {
			return nil, err
		}
		total += c.nodes[name]
		if total > c.maxNodes {
			return nil, errSchemaTooLarge
		}
		defs[name] = def
		queue = append(queue, c.deps[name]...)
	}
	if len(defs) > 0 {
		out = withDefs(out, defs)
	}
	return out, nil
}

// withDefs adds defs to a root schema (a copy, as roots may be shared).
func withDefs(s map[string]any, defs map[string]any) map[string]any {
	out := make(map[string]any, len(s)+1)
	for k, v := range s {
		out[k] = v
	}
	out["$defs"] = defs
	return out
}

// component converts the component schema name once.
func (c *converter) component(name string) (map[string]any, error) {
	if d, ok := c.defs[name]; ok {
		return d, nil
	}
	ref := c.components[name]
	if ref == nil || ref.Value == nil {
		return nil, fmt.Errorf("$ref %s%s points nowhere", componentPrefix, name)
	}
	// Entered before converting, so that a component reached from
	// itself finds it.
	c.defs[name] = map[string]any{}
	w := &walk{c: c, path: map[*openapi3.Schema]bool{}}
	d := w.schema(ref.Value)
	for k, v := range d {
		c.defs[name][k] = v
	}
	c.deps[name] = w.refs
	c.nodes[name] = w.nodes
	if w.nodes > c.maxNodes {
		return nil, errSchemaTooLarge
	}
	return c.defs[name], nil
}

// ref converts a schema or a reference to one.
func (w *walk) ref(r *openapi3.SchemaRef) map[string]any {
	if r == nil {
		return map[string]any{}
	}
	if name, ok := strings.CutPrefix(r.Ref, componentPrefix); ok && !strings.Contains(name, "/") {
		name = strings.NewReplacer("~1", "/", "~0", "~").Replace(name)
		if _, known := w.c.components[name]; known {
			w.nodes++
			w.refs = append(w.refs, name)
			return map[string]any{"$ref": "#/$defs/" + pointerEscape(name)}
		}
	}
	if r.Value == nil {
		return map[string]any{}
	}
	return w.schema(r.Value)
}

func pointerEscape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// schema converts s, with its references (see ref).
func (w *walk) schema(s *openapi3.Schema) map[string]any {
	w.nodes++
	if w.path[s] || w.nodes > w.c.maxNodes {
		// A cycle outside the components, or a schema past the bound
		// (root reports it): anything.
		return map[string]any{}
	}
	w.path[s] = true
	defer delete(w.path, s)
	if len(s.AllOf) > 0 {
		if m := w.c.mergeAllOf(s, 0); m != nil {
			s = m
		}
	}
	if s.Always != nil {
		if *s.Always {
			return map[string]any{}
		}
		return map[string]any{"not": map[string]any{}}
	}
	out := map[string]any{}
	set := func(k string, v any) { out[k] = v }
	refs := func(k string, rs openapi3.SchemaRefs) {
		if len(rs) == 0 {
			return
		}
		l := make([]any, len(rs))
		for i, r := range rs {
			l[i] = w.ref(r)
		}
		set(k, l)
	}
	one := func(k string, r *openapi3.SchemaRef) {
		if r != nil {
			set(k, w.ref(r))
		}
	}
	named := func(k string, m openapi3.Schemas) {
		if len(m) == 0 {
			return
		}
		o := make(map[string]any, len(m))
		for n, r := range m {
			o[n] = w.ref(r)
		}
		set(k, o)
	}
	types := s.Type.Slice()
	if s.Nullable && len(types) > 0 && !s.Type.IncludesNull() {
		types = append(append([]string(nil), types...), openapi3.TypeNull)
	}
	switch len(types) {
	case 0:
	case 1:
		set("type", types[0])
	default:
		l := make([]any, len(types))
		for i, t := range types {
			l[i] = t
		}
		set("type", l)
	}
	if s.Nullable && len(types) == 0 && (len(s.OneOf) > 0 || len(s.AnyOf) > 0 || len(s.AllOf) > 0) {
		// nullable beside a composition (3.0): null or the composition.
		inner := w.compose(s)
		return map[string]any{"anyOf": []any{map[string]any{"type": "null"}, inner}}
	}
	refs("oneOf", s.OneOf)
	refs("anyOf", s.AnyOf)
	refs("allOf", s.AllOf)
	one("not", s.Not)
	if s.Title != "" {
		set("title", s.Title)
	}
	if s.Format != "" {
		set("format", s.Format)
	}
	if s.Description != "" {
		set("description", s.Description)
	}
	if len(s.Enum) > 0 {
		enum := s.Enum
		if s.Nullable && !contains(enum, nil) {
			enum = append(append([]any(nil), enum...), nil)
		}
		set("enum", enum)
	}
	if s.Const != nil {
		set("const", s.Const)
	}
	if s.Default != nil {
		set("default", s.Default)
	}
	if s.Deprecated {
		set("deprecated", true)
	}
	if s.UniqueItems {
		set("uniqueItems", true)
	}
	bound := func(k, ek string, v *float64, ex openapi3.ExclusiveBound) {
		switch {
		case ex.Value != nil: // 3.1: a number
			set(ek, *ex.Value)
			if v != nil {
				set(k, *v)
			}
		case ex.Bool != nil && *ex.Bool && v != nil: // 3.0: a modifier
			set(ek, *v)
		case v != nil:
			set(k, *v)
		}
	}
	bound("minimum", "exclusiveMinimum", s.Min, s.ExclusiveMin)
	bound("maximum", "exclusiveMaximum", s.Max, s.ExclusiveMax)
	if s.MultipleOf != nil {
		set("multipleOf", *s.MultipleOf)
	}
	if s.MinLength > 0 {
		set("minLength", s.MinLength)
	}
	if s.MaxLength != nil {
		set("maxLength", *s.MaxLength)
	}
	if s.Pattern != "" {
		set("pattern", s.Pattern)
	}
	if s.MinItems > 0 {
		set("minItems", s.MinItems)
	}
	if s.MaxItems != nil {
		set("maxItems", *s.MaxItems)
	}
	one("items", s.Items)
	refs("prefixItems", s.PrefixItems)
	one("contains", s.Contains)
	if len(s.Required) > 0 {
		l := make([]any, len(s.Required))
		for i, r := range s.Required {
			l[i] = r
		}
		set("required", l)
	}
	named("properties", s.Properties)
	named("patternProperties", s.PatternProperties)
	if s.MinProps > 0 {
		set("minProperties", s.MinProps)
	}
	if s.MaxProps != nil {
		set("maxProperties", *s.MaxProps)
	}
	boolSchema := func(k string, b openapi3.BoolSchema) {
		switch {
		case b.Has != nil:
			set(k, *b.Has)
		case b.Schema != nil:
			set(k, w.ref(b.Schema))
		}
	}
	boolSchema("additionalProperties", s.AdditionalProperties)
	one("propertyNames", s.PropertyNames)
	return out
}

// compose converts the compositions of s alone.
func (w *walk) compose(s *openapi3.Schema) map[string]any {
	out := map[string]any{}
	for k, rs := range map[string]openapi3.SchemaRefs{"oneOf": s.OneOf, "anyOf": s.AnyOf, "allOf": s.AllOf} {
		if len(rs) == 0 {
			continue
		}
		l := make([]any, len(rs))
		for i, r := range rs {
			l[i] = w.ref(r)
		}
		out[k] = l
	}
	if s.Description != "" {
		out["description"] = s.Description
	}
	return out
}

func contains(l []any, v any) bool {
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}

// mergeAllOf returns s with its allOf merged into one object schema
// (properties and required members of every branch, components
// followed), as declarations show only a single allOf branch; nil when a
// branch is not a plain object schema (it has its own oneOf, anyOf, not,
// or a type other than object), in which case allOf stays as written.
func (c *converter) mergeAllOf(s *openapi3.Schema, depth int) *openapi3.Schema {
	if depth > 8 {
		return nil // allOf nested (or cycling) this deep: leave it
	}
	m := *s
	m.AllOf = nil
	m.Properties = openapi3.Schemas{}
	for k, v := range s.Properties {
		m.Properties[k] = v
	}
	m.Required = append([]string(nil), s.Required...)
	if !objectish(&m) {
		return nil
	}
	for _, br := range s.AllOf {
		if br == nil || br.Value == nil {
			return nil
		}
		b := br.Value
		if len(b.AllOf) > 0 {
			if b = c.mergeAllOf(b, depth+1); b == nil {
				return nil
			}
		}
		if !objectish(b) {
			return nil
		}
		for k, v := range b.Properties {
			if _, ok := m.Properties[k]; !ok {
				m.Properties[k] = v
			}
		}
		for _, r := range b.Required {
			if !slices.Contains(m.Required, r) {
				m.Required = append(m.Required, r)
			}
		}
		if m.Description == "" {
			m.Description = b.Description
		}
		if m.AdditionalProperties.Has == nil && m.AdditionalProperties.Schema == nil {
			m.AdditionalProperties = b.AdditionalProperties
		}
		m.Nullable = m.Nullable && b.Nullable
	}
	m.Type = &openapi3.Types{openapi3.TypeObject}
	return &m
}

// objectish reports a schema that is an object's properties and nothing
// that merging would lose.
func objectish(s *openapi3.Schema) bool {
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 || s.Not != nil || len(s.Enum) > 0 || s.Always != nil {
		return false
	}
	return s.Type == nil || s.Type.Is(openapi3.TypeObject) || (len(s.Type.Slice()) == 0)
}
