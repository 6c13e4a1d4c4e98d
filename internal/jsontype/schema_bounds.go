package jsontype

import (
	"fmt"
	"strconv"
	"strings"
)

// The bounds on what FromSchema accepts, so that every walk over a node
// it built (the catalog's checks, typegen, discovery) is bounded, and the
// schema validator the catalog runs after the node check can never
// recurse without end.
//
// A schema comes from whoever registers a function: for an upstream MCP
// server, from that server. These bounds are far above what real tool
// schemas use (the generated GitHub catalogue's deepest schema nests 9
// levels and its largest has a few hundred subschemas).
const (
	// MaxSchemaBytes bounds a schema's JSON text.
	MaxSchemaBytes = 1 << 20
	// MaxSchemaDepth bounds how deeply subschemas nest (an object in a
	// property of an object is two levels).
	MaxSchemaDepth = 64
	// MaxSchemaNodes bounds the types a schema describes when written
	// out in full, each named object once: a $ref used many times counts
	// each time it is written.
	MaxSchemaNodes = 10000
	// MaxSchemaText bounds the bytes of names, descriptions and values
	// the types take when written out in the same way.
	MaxSchemaText = 4 << 20
)

// tooBig is the error for a schema over one of the bounds.
func tooBig(at, what string, limit int) error {
	return fmt.Errorf("%s: the schema %s (the limit is %d)", shortPointer(at), what, limit)
}

// shortPointer keeps an error's schema path readable: a pointer of more
// than 12 steps keeps its first 4 and last 6.
func shortPointer(at string) string {
	steps := strings.Split(at, "/")
	if len(steps) <= 12 {
		return at
	}
	return strings.Join(steps[:4], "/") + "/…(" + strconv.Itoa(len(steps)-10) + " steps)…/" + strings.Join(steps[len(steps)-6:], "/")
}

// The keywords whose subschemas apply to the value itself, rather than to
// a member or item of it. A chain of these that comes back to where it
// started never reaches a smaller value: a validator following it recurses
// until the stack overflows (JSON Schema 2020-12 core, 9.4.1: such schemas
// are not to be used, and their behaviour is undefined).
var inPlace = []string{"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies"}

// The keywords whose subschemas apply to parts of the value.
var (
	subschemaMaps   = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
	subschemaLists  = []string{"prefixItems", "allOf", "anyOf", "oneOf", "items"}
	subschemaSingle = []string{"items", "additionalItems", "additionalProperties", "contains", "propertyNames", "not", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
)

// loopCheck finds a chain of in-place subschemas and references that
// comes back to where it started.
type loopCheck struct {
	root    any
	where   map[*ordered]string // JSON pointer of every subschema found
	order   []*ordered          // the subschemas in the order found
	state   map[*ordered]int    // 1 while on the path, 2 once done
	path    []string
	anchors []*ordered // subschemas a reference this check cannot follow exactly may reach
	nested  []*ordered // subschemas with their own $id: relative pointers resolve against them too
	count   int
}

// checkLoops refuses a schema in which a value could be checked against
// the same subschema again without the check moving into a part of it.
// It follows references conservatively: one it cannot resolve exactly
// ($dynamicRef, $recursiveRef, an anchor, a reference inside a subschema
// with its own $id) is taken to lead to every subschema that declares an
// $id or an anchor, and to the root.
func checkLoops(root any) error {
	c := &loopCheck{root: root, where: map[*ordered]string{}, state: map[*ordered]int{}}
	if err := c.collect(root, "#", 0); err != nil {
		return err
	}
	if o, ok := root.(*ordered); ok {
		c.anchors = append(c.anchors, o)
	}
	for _, o := range c.order {
		if err := c.visit(o, c.where[o]); err != nil {
			return err
		}
	}
	return nil
}

// collect records every subschema under s and its pointer.
func (c *loopCheck) collect(s any, at string, depth int) error {
	o, ok := s.(*ordered)
	if !ok {
		return nil
	}
	if _, seen := c.where[o]; seen {
		return nil
	}
	if c.count++; c.count > MaxSchemaNodes {
		return tooBig(at, "has too many subschemas", MaxSchemaNodes)
	}
	if depth > MaxSchemaDepth {
		return tooBig(at, "nests too deeply", MaxSchemaDepth)
	}
	c.where[o] = at
	c.order = append(c.order, o)
	for _, k := range []string{"$anchor", "$dynamicAnchor", "$recursiveAnchor"} {
		if _, has := o.M[k]; has {
			c.anchors = append(c.anchors, o)
		}
	}
	if _, has := o.M["$id"]; has && at != "#" {
		c.anchors = append(c.anchors, o)
		c.nested = append(c.nested, o)
	}
	for _, kw := range subschemaMaps {
		if m, ok := o.M[kw].(*ordered); ok {
			for _, k := range m.Keys {
				if err := c.collect(m.M[k], at+"/"+kw+"/"+pointerEscape(k), depth+1); err != nil {
					return err
				}
			}
		}
	}
	for _, kw := range subschemaLists {
		if l, ok := o.M[kw].([]any); ok {
			for i, e := range l {
				if err := c.collect(e, at+"/"+kw+"/"+strconv.Itoa(i), depth+1); err != nil {
					return err
				}
			}
		}
	}
	for _, kw := range subschemaSingle {
		if err := c.collect(o.M[kw], at+"/"+kw, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// visit walks the in-place edges from o depth first.
func (c *loopCheck) visit(o *ordered, at string) error {
	switch c.state[o] {
	case 2:
		return nil
	case 1:
		start := 0
		for i, p := range c.path {
			if p == at {
				start = i
			}
		}
		loop := append(append([]string{}, c.path[start:]...), at)
		for i := range loop {
			loop[i] = shortPointer(loop[i])
		}
		return fmt.Errorf("%s: the schema refers back to itself without moving into a member or item of the value (%s), so no value could ever be checked against it", shortPointer(at), strings.Join(loop, " → "))
	}
	c.state[o] = 1
	c.path = append(c.path, at)
	for _, e := range c.edges(o, at) {
		if err := c.visit(e.o, e.at); err != nil {
			return err
		}
	}
	c.path = c.path[:len(c.path)-1]
	c.state[o] = 2
	return nil
}

type edge struct {
	o  *ordered
	at string
}

// edges lists the subschemas that apply to the same value as o.
func (c *loopCheck) edges(o *ordered, at string) []edge {
	var out []edge
	add := func(v any, where string) {
		if e, ok := v.(*ordered); ok {
			if known, ok := c.where[e]; ok {
				where = known
			}
			out = append(out, edge{e, where})
		}
	}
	for _, kw := range inPlace {
		switch v := o.M[kw].(type) {
		case []any:
			for i, e := range v {
				add(e, at+"/"+kw+"/"+strconv.Itoa(i))
			}
		case *ordered:
			if kw == "dependentSchemas" || kw == "dependencies" {
				for _, k := range v.Keys {
					add(v.M[k], at+"/"+kw+"/"+pointerEscape(k))
				}
				continue
			}
			add(v, at+"/"+kw)
		}
	}
	for _, kw := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
		ref, ok := o.M[kw].(string)
		if !ok {
			continue
		}
		exact := kw == "$ref" && strings.HasPrefix(ref, "#") && (ref == "#" || strings.HasPrefix(ref, "#/"))
		if exact {
			if t, err := resolvePointer(c.root, ref); err == nil {
				add(t, ref)
			}
			for _, n := range c.nested {
				if t, err := resolvePointer(n, ref); err == nil {
					add(t, c.where[n]+ref[1:])
				}
			}
		}
		if !exact || len(c.nested) > 0 {
			for _, a := range c.anchors {
				add(a, c.where[a])
			}
		}
	}
	return out
}

// resolvePointer finds the value a "#…" JSON pointer names inside root.
func resolvePointer(root any, ref string) (any, error) {
	cur := root
	p := strings.TrimPrefix(ref, "#")
	if p == "" {
		return cur, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("only JSON-pointer references are supported")
	}
	for _, tok := range strings.Split(p[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := cur.(type) {
		case *ordered:
			e, ok := v.M[tok]
			if !ok {
				return nil, fmt.Errorf("it points nowhere")
			}
			cur = e
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return nil, fmt.Errorf("it points nowhere")
			}
			cur = v[i]
		default:
			return nil, fmt.Errorf("it points nowhere")
		}
	}
	return cur, nil
}

// expansion reports whether writing out the nodes under root, each named
// object once, takes more than MaxSchemaNodes types or MaxSchemaText
// bytes of names, documentation and values. Every cycle passes through a
// named object (see recursion), so the unnamed nodes form a DAG and one
// pass with a memo measures it, however often a $ref is reused.
func expansion(root *Node) error {
	type cost struct{ types, text int }
	capped := func(c cost) cost { return cost{min(c.types, MaxSchemaNodes+1), min(c.text, MaxSchemaText+1)} }
	size := map[*Node]cost{} // written-out cost of unnamed nodes
	named := map[*Node]bool{}
	var decls cost // the named objects' declarations
	var measure func(n *Node, top bool) cost
	measure = func(n *Node, top bool) cost {
		if n == nil || decls.types > MaxSchemaNodes || decls.text > MaxSchemaText {
			return cost{}
		}
		if n.Shape == Struct && n.Name != "" && !top {
			if !named[n] {
				named[n] = true
				d := measure(n, true) // its declaration, written once
				decls = capped(cost{decls.types + d.types, decls.text + d.text})
			}
			return cost{1, len(n.Name)}
		}
		if c, ok := size[n]; ok && !top {
			return c
		}
		total := cost{1, len(n.Name) + len(n.Doc) + len(n.Default) + len(n.Format) + len(n.Pattern) + len(n.Note) + 8*len(n.Enum)}
		add := func(c cost) { total = capped(cost{total.types + c.types, total.text + c.text}) }
		for _, f := range n.Fields {
			add(cost{0, len(f.Name) + len(f.Doc)})
			add(measure(f.Node, false))
		}
		for _, v := range n.Variants {
			add(measure(v, false))
		}
		for _, v := range n.Items {
			add(measure(v, false))
		}
		for _, v := range n.Enum {
			if s, ok := v.(string); ok {
				add(cost{0, len(s)})
			}
		}
		add(measure(n.Elem, false))
		if !top {
			size[n] = total
		}
		return total
	}
	top := root.Shape == Struct && root.Name != ""
	named[root] = top
	c := measure(root, top)
	switch {
	case c.types+decls.types > MaxSchemaNodes:
		return tooBig("#", "describes too many types when written out", MaxSchemaNodes)
	case c.text+decls.text > MaxSchemaText:
		return tooBig("#", "takes too many bytes of names and documentation when written out", MaxSchemaText)
	}
	return nil
}
