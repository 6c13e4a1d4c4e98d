package jsontype

import (
	"fmt"
)

// The node of each JSON type a schema names (string, integer, number,
// boolean, array, object): its shape and the rules its keywords give.

func (b *schemaBuilder) typed(n *Node, s *ordered, typ, at string) error {
	switch typ {
	case "string":
		n.Shape = String
		n.Format = s.Str("format")
		switch n.Format {
		case "date-time":
			n.Shape, n.Format = Time, ""
		case "email":
			n.Rules, n.Format = append(n.Rules, Rule{Tag: "email"}), ""
		case "uri":
			n.Rules, n.Format = append(n.Rules, Rule{Tag: "url"}), ""
		case "uuid":
			n.Rules, n.Format = append(n.Rules, Rule{Tag: "uuid"}), ""
		}
		if s.Str("contentEncoding") == "base64" {
			n.Shape = Bytes
		}
		n.Rules = append(n.Rules, bounds(s, "minLength", "maxLength", "", "")...)
		if p := s.Str("pattern"); p != "" {
			n.Pattern = p
		}
	case "integer":
		n.Shape, n.Bits = Int, 64
		n.Rules = append(n.Rules, bounds(s, "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")...)
	case "number":
		n.Shape, n.Bits = Float, 64
		n.Rules = append(n.Rules, bounds(s, "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")...)
	case "boolean":
		n.Shape = Bool
	case "array":
		return b.array(n, s, at)
	case "object":
		return b.objectType(n, s, at)
	default:
		n.Shape = Any
	}
	return nil
}

func (b *schemaBuilder) array(n *Node, s *ordered, at string) error {
	n.Shape = Slice
	n.Rules = append(n.Rules, bounds(s, "minItems", "maxItems", "", "")...)
	if u, _ := s.M["uniqueItems"].(bool); u {
		n.Rules = append(n.Rules, Rule{Tag: "unique"})
		b.partial = true // the rule cannot compare objects; the validator can
	}
	tuple, _ := s.M["prefixItems"].([]any)
	kw := "prefixItems"
	rest, restKw := s.M["items"], "items"
	if arr, ok := s.M["items"].([]any); ok { // draft-07 tuple
		tuple, kw = arr, "items"
		rest, restKw = s.M["additionalItems"], "additionalItems"
	}
	if tuple != nil {
		n.Shape = Array
		for i, it := range tuple {
			e, err := b.build(it, fmt.Sprintf("%s/%s/%d", at, kw, i))
			if err != nil {
				return err
			}
			n.Items = append(n.Items, e)
		}
		n.Length = len(tuple)
		if rest == false {
			return nil
		}
		n.Length = -1 // more items may follow
	}
	if rest == nil {
		n.Elem = &Node{Shape: Any}
		return nil
	}
	e, err := b.build(rest, at+"/"+restKw)
	if err != nil {
		return err
	}
	n.Elem = e
	return nil
}

func (b *schemaBuilder) objectType(n *Node, s *ordered, at string) error {
	props, hasProps := s.M["properties"].(*ordered)
	addl, hasAddl := s.M["additionalProperties"]
	if !hasProps && hasAddl && addl != false || !hasProps && at != "#" && !hasAddl {
		// A record: {[key: string]: T}.
		n.Shape = Map
		n.Rules = append(n.Rules, bounds(s, "minProperties", "maxProperties", "", "")...)
		if !hasAddl || addl == true {
			n.Elem = &Node{Shape: Any}
			return nil
		}
		e, err := b.build(addl, at+"/additionalProperties")
		if err != nil {
			return err
		}
		n.Elem = e
		return nil
	}
	n.Shape = Struct
	if _, ok := s.Get("minProperties"); ok {
		b.partial = true
	}
	if _, ok := s.Get("maxProperties"); ok {
		b.partial = true
	}
	n.Name = s.Str("title")
	n.ByName = map[string]int{}
	req := map[string]bool{}
	if list, ok := s.M["required"].([]any); ok {
		for _, r := range list {
			if name, ok := r.(string); ok {
				req[name] = true
			}
		}
	}
	for name := range req {
		if _, declared := props.Get(name); !declared {
			b.partial = true // required but not declared
		}
	}
	if props != nil {
		for _, name := range props.Keys {
			ps := props.M[name]
			f, err := b.build(ps, at+"/properties/"+pointerEscape(name))
			if err != nil {
				return err
			}
			doc := f.Doc
			if o, ok := ps.(*ordered); ok {
				doc = o.Str("description")
			}
			n.ByName[name] = len(n.Fields)
			n.Fields = append(n.Fields, FieldNode{Name: name, Required: req[name], Node: f, Doc: doc})
		}
	}
	if hasAddl && addl != false {
		n.Open = true
		n.Elem = &Node{Shape: Any}
		if addl != true {
			e, err := b.build(addl, at+"/additionalProperties")
			if err != nil {
				return err
			}
			n.Elem = e
		}
	}
	return nil
}
