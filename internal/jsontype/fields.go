package jsontype

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Field is one JSON member of a struct, after embedded structs have been
// flattened the way encoding/json flattens them.
type Field struct {
	Name   string // JSON member name
	GoName string // Go field name
	Index  []int  // reflect index path from the outer struct
	// Via names the embedded structs the member is promoted through, by
	// their Go field names, outermost first (Index without its last step,
	// named): a cross-member rule names its siblings within them.
	Via       []string
	Type      reflect.Type // the field's Go type
	OmitEmpty bool         // ",omitempty"
	OmitZero  bool         // ",omitzero"
	Quoted    bool         // ",string"
	Doc       string       // the jsonschema:"…" tag: the field's description
	Validate  string       // the raw validate:"…" tag
	// Required reports whether the member must be present in input and is
	// always present in output. A field is required when it has a top-level
	// validate "required" rule, or when it is not a pointer, not an
	// interface or json.RawMessage, and has neither omitempty nor omitzero.
	Required bool
}

var cache sync.Map // reflect.Type -> []Field

// Fields returns the JSON members of struct type t in encoding/json order.
// It panics if t is not a struct.
func Fields(t reflect.Type) []Field {
	if f, ok := cache.Load(t); ok {
		return f.([]Field)
	}
	f := typeFields(t)
	cache.Store(t, f)
	return f
}

type candidate struct {
	Field
	depth  int
	tagged bool
}

// typeFields follows encoding/json's typeFields: a breadth-first walk of
// embedded structs where the shallowest field wins and, at equal depth, a
// single tagged field wins; other clashes drop the name entirely.
func typeFields(t reflect.Type) []Field {
	type level struct {
		typ   reflect.Type
		index []int
		via   []string
	}
	var cands []candidate
	current := []level{}
	next := []level{{typ: t}}
	visited := map[reflect.Type]bool{}
	for depth := 0; len(next) > 0; depth++ {
		current, next = next, current[:0]
		count := map[reflect.Type]int{}
		for _, lv := range current {
			if visited[lv.typ] {
				continue
			}
			visited[lv.typ] = true
			for i := 0; i < lv.typ.NumField(); i++ {
				sf := lv.typ.Field(i)
				ft := sf.Type
				if sf.Anonymous {
					et := ft
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				index := append(slices.Clip(lv.index), i)
				et := ft
				if et.Name() == "" && et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if name == "" && sf.Anonymous && et.Kind() == reflect.Struct {
					count[et]++
					if count[et] == 1 {
						next = append(next, level{typ: et, index: index, via: append(slices.Clip(lv.via), sf.Name)})
					}
					continue
				}
				tagged := name != ""
				if name == "" {
					name = sf.Name
				}
				f := Field{
					Name:      name,
					GoName:    sf.Name,
					Index:     index,
					Via:       lv.via,
					Type:      ft,
					OmitEmpty: hasOpt(opts, "omitempty"),
					OmitZero:  hasOpt(opts, "omitzero"),
					Quoted:    hasOpt(opts, "string"),
					Doc:       sf.Tag.Get("jsonschema"),
					Validate:  sf.Tag.Get("validate"),
				}
				f.Required = required(f)
				cands = append(cands, candidate{f, depth, tagged})
			}
		}
	}
	// Group by name; keep the dominant field of each group.
	order := []string{}
	byName := map[string][]candidate{}
	for _, c := range cands {
		if _, ok := byName[c.Name]; !ok {
			order = append(order, c.Name)
		}
		byName[c.Name] = append(byName[c.Name], c)
	}
	out := []Field{}
	for _, name := range order {
		if f, ok := dominant(byName[name]); ok {
			out = append(out, f)
		}
	}
	// encoding/json orders by index sequence.
	slices.SortStableFunc(out, func(a, b Field) int { return slices.Compare(a.Index, b.Index) })
	return out
}

func dominant(cs []candidate) (Field, bool) {
	minDepth := cs[0].depth
	for _, c := range cs {
		minDepth = min(minDepth, c.depth)
	}
	var top []candidate
	for _, c := range cs {
		if c.depth == minDepth {
			top = append(top, c)
		}
	}
	if len(top) == 1 {
		return top[0].Field, true
	}
	var tagged []candidate
	for _, c := range top {
		if c.tagged {
			tagged = append(tagged, c)
		}
	}
	if len(tagged) == 1 {
		return tagged[0].Field, true
	}
	return Field{}, false
}

func hasOpt(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

func required(f Field) bool {
	rules, _ := SplitValidate(f.Validate)
	for _, r := range rules {
		if r.Tag == "required" {
			return true
		}
	}
	if f.OmitEmpty || f.OmitZero {
		return false
	}
	switch f.Type.Kind() {
	case reflect.Pointer, reflect.Interface:
		return false
	}
	return !IsRawMessage(f.Type)
}

// IsRawMessage reports whether t is json.RawMessage, which carries
// arbitrary JSON.
func IsRawMessage(t reflect.Type) bool {
	return t == rawMessageType
}

// EmptyArgsAccepted reports whether decoding accepts {} for struct t: no
// member is required, and none is required merely because another is
// absent (required_without, required_without_all, required_unless), so a
// declaration may mark the whole argument optional.
func EmptyArgsAccepted(t reflect.Type) bool {
	for _, f := range Fields(t) {
		if f.Required {
			return false
		}
		rules, _ := SplitValidate(f.Validate)
		for _, r := range rules {
			switch r.Tag {
			case "required_without", "required_without_all", "required_unless":
				return false
			}
		}
	}
	return true
}

// CheckDoc rejects a jsonschema:"…" tag written in the key=value form
// (description=…,enum=…) that other libraries read: here the whole tag is
// the member's description, so such a tag would reach the model verbatim.
// Constraints belong in validate:"…", where they are enforced.
func CheckDoc(doc string) error {
	key, _, ok := strings.Cut(doc, "=")
	if !ok || key == "" || strings.IndexFunc(key, func(r rune) bool {
		return !(r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) >= 0 {
		return nil
	}
	return fmt.Errorf("jsonschema tag %q: the key=value form is not supported; the tag is the description alone (jsonschema:\"How many laps\"), and constraints go in validate:\"…\"", doc)
}
