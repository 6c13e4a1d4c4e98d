package jsontype

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Node is the one model of a value's type that the library reads: catalog
// checks arguments against it, typegen and discovery describe it. It is
// built once, at registration, either from a Go type ([FromGo]) or from a
// JSON Schema ([FromSchema]); everything downstream sees only the Node, so
// a function known by JSON Schema is checked and declared the way a typed
// one is.
//
// Nodes may be cyclic (a recursive type or $ref): walkers must remember
// the nodes they have entered, or follow a finite value. A node built
// from JSON Schema is bounded (see [MaxSchemaDepth], [MaxSchemaNodes]),
// and each of its cycles passes through a named Struct.
type Node struct {
	Shape Shape
	// GoType is the Go type the node was built from; nil for nodes built
	// from JSON Schema.
	GoType reflect.Type
	Bits   int   // size of Int, Uint and Float shapes; 64 from JSON Schema
	Elem   *Node // Ptr, Slice, Array, Map
	Length int   // Array length
	KeyInt bool  // Map keys are integers
	KeyU   bool  // Map keys are unsigned integers
	Fields []FieldNode
	ByName map[string]int // member name → index in Fields
	// Embeds lists, for a Go struct, the named structs it embeds by value
	// whose members all reach JSON unchanged (none shadowed), so that a
	// declaration may extend the embedded type instead of repeating its
	// members. Nil for nodes built from JSON Schema, which has no
	// embedding.
	Embeds []Embed

	// What JSON Schema adds (nil or zero for Go-built nodes, whose
	// documentation and rules live in struct tags).

	// Name is what a declaration calls a schema's object type: the $defs
	// (or definitions) entry it came from, else its title.
	Name string
	// Doc is the schema's description.
	Doc string
	// Rules are the constraints the node carries, as validate rules, so
	// catalog words their failures and typegen documents them from the
	// same table ([LookupRule]) for both kinds of function.
	Rules []Rule
	// Enum lists the allowed values (enum, const) when they are all
	// strings, numbers or booleans.
	Enum []any
	// Default is the schema's default value, raw.
	Default []byte
	// Format is the schema's format, when no rule states it.
	Format string
	// Pattern is the schema's pattern (checked by the schema validator).
	Pattern string
	// Variants are the alternatives of a oneOf/anyOf (Shape Any).
	Variants []*Node
	// Items are a tuple's positional element types (Shape Array).
	Items []*Node
	// Open marks an object that also accepts members it does not declare
	// (additionalProperties given alongside properties); Elem types them.
	Open bool
	// Note says why an Any node states less than its schema: a recursive
	// type that passes through no object (an array of itself) is any
	// JSON where it recurs, and the schema validator checks it there.
	Note string
}

// FieldNode is one member of a Struct node.
type FieldNode struct {
	Name     string
	Required bool
	Node     *Node
	Doc      string // the member's description
	// Go is the struct field a Go-built member comes from (its validate
	// tag, Go name and index); nil for members built from JSON Schema,
	// whose constraints are on Node.
	Go *Field
}

// Embed is a named struct embedded in a Go struct, every member of which
// is promoted into the outer struct's Fields.
type Embed struct {
	// Index is the embedded field's index in the outer struct: the first
	// step of the Index of each member promoted from it (FieldNode.Go).
	Index int
	// Node is the embedded struct's own node.
	Node *Node
}

// Expected names what n accepts, in TypeScript's words, for messages such
// as "Expected number, got string".
func (n *Node) Expected() string {
	switch n.Shape {
	case Bool:
		return "boolean"
	case Int, Uint, Float:
		return "number"
	case String, Text, Bytes, Time:
		return "string"
	case Slice, Array:
		return "array"
	case Map, Struct:
		return "object"
	case Ptr:
		return n.Elem.Expected()
	}
	return "value"
}

// FieldNames lists a Struct node's member names in order.
func (n *Node) FieldNames() []string {
	names := make([]string, len(n.Fields))
	for i, f := range n.Fields {
		names[i] = f.Name
	}
	return names
}

// Kind is the reflect.Kind the rule table words messages for, for a node
// of either origin.
func (n *Node) Kind() reflect.Kind {
	if n.GoType != nil {
		return n.GoType.Kind()
	}
	switch n.Shape {
	case Bool:
		return reflect.Bool
	case Int:
		return reflect.Int64
	case Uint:
		return reflect.Uint64
	case Float:
		return reflect.Float64
	case String, Text, Bytes, Time:
		return reflect.String
	case Slice, Array:
		return reflect.Slice
	case Map:
		return reflect.Map
	case Struct:
		return reflect.Struct
	case Ptr:
		return reflect.Pointer
	}
	return reflect.Interface
}

// goPlanner builds nodes from Go types and reports types that cannot
// cross JSON.
type goPlanner struct {
	input    bool // building for arguments (decoding) rather than results
	memo     map[reflect.Type]*Node
	building []reflect.Type // the types whose nodes are being built, outermost first
}

// FromGo builds the node of Go type t. input selects the decoding side
// (see [ShapeOf]). It fails for types that cannot cross JSON: chan, func,
// complex, non-empty interfaces, structs without exported fields, maps
// with keys JSON cannot carry, ",string" fields, key=value jsonschema
// tags, and a type that contains itself through no struct (type L []L).
func FromGo(t reflect.Type, input bool) (*Node, error) {
	p := &goPlanner{input: input, memo: map[reflect.Type]*Node{}}
	return p.build(t, t.String())
}

func (p *goPlanner) build(t reflect.Type, where string) (*Node, error) {
	if n, ok := p.memo[t]; ok {
		if !p.throughStruct(t) {
			// type L []L: a cycle through no struct, which no declaration
			// or JSON Schema the library writes can name.
			return nil, fmt.Errorf("%s: type %s contains itself through no struct; wrap the recursion in a struct", where, t)
		}
		return n, nil
	}
	n := &Node{GoType: t, Shape: ShapeOf(t, p.input)}
	p.memo[t] = n
	p.building = append(p.building, t)
	defer func() { p.building = p.building[:len(p.building)-1] }()
	switch n.Shape {
	case Int, Uint, Float:
		n.Bits = t.Bits()
	case Unsupported:
		if t.Kind() == reflect.Interface {
			return nil, fmt.Errorf("%s: interface type %s cannot cross JSON; use any or a concrete type", where, t)
		}
		return nil, fmt.Errorf("%s: %s values cannot cross JSON", where, t)
	case Ptr:
		e, err := p.build(t.Elem(), where)
		if err != nil {
			return nil, err
		}
		n.Elem = e
	case Slice, Array:
		if n.Shape == Array {
			n.Length = t.Len()
		}
		e, err := p.build(t.Elem(), where+"[]")
		if err != nil {
			return nil, err
		}
		n.Elem = e
	case Map:
		k := t.Key()
		switch {
		case k.Kind() == reflect.String:
		case TextKey(k):
		case k.Kind() >= reflect.Int && k.Kind() <= reflect.Int64:
			n.KeyInt = true
		case k.Kind() >= reflect.Uint && k.Kind() <= reflect.Uintptr:
			n.KeyInt, n.KeyU = true, true
		default:
			return nil, fmt.Errorf("%s: map key type %s cannot cross JSON; use string keys", where, k)
		}
		e, err := p.build(t.Elem(), where+"[key]")
		if err != nil {
			return nil, err
		}
		n.Elem = e
	case Struct:
		fields := Fields(t)
		if len(fields) == 0 && t.NumField() > 0 {
			return nil, fmt.Errorf("%s: struct %s has no exported fields, so it cannot cross JSON", where, t)
		}
		n.ByName = make(map[string]int, len(fields))
		for _, f := range fields {
			if f.Quoted {
				return nil, fmt.Errorf("%s.%s: the json \",string\" option is not supported; use the plain type", where, f.GoName)
			}
			if err := CheckDoc(f.Doc); err != nil {
				return nil, fmt.Errorf("%s.%s: %w", where, f.GoName, err)
			}
			fn, err := p.build(f.Type, where+"."+f.GoName)
			if err != nil {
				return nil, err
			}
			n.ByName[f.Name] = len(n.Fields)
			n.Fields = append(n.Fields, FieldNode{Name: f.Name, Required: f.Required, Node: fn, Doc: f.Doc, Go: &f})
		}
		n.Embeds = p.embeds(t, n.Fields, where)
	}
	return n, nil
}

// throughStruct reports whether reaching t again, whose node is memoized,
// is fine: t is not being built (a type met twice, not a cycle), or the
// cycle from t back to t passes through a struct (type T struct{ Next *T },
// reached first through *T), which declarations name.
func (p *goPlanner) throughStruct(t reflect.Type) bool {
	i := slices.Index(p.building, t)
	if i < 0 {
		return true
	}
	for _, u := range p.building[i:] {
		if p.memo[u].Shape == Struct {
			return true
		}
	}
	return false
}

// embeds finds the named structs t embeds by value, without a JSON name,
// whose members are all among fields unchanged (same names, order,
// optionality and types): their nodes are built from members already
// built, so this cannot fail.
func (p *goPlanner) embeds(t reflect.Type, fields []FieldNode, where string) []Embed {
	var out []Embed
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		e := sf.Type
		if !sf.Anonymous || e.Kind() != reflect.Struct || e.Name() == "" || !sf.IsExported() {
			continue
		}
		if name, _, _ := strings.Cut(sf.Tag.Get("json"), ","); name != "" {
			continue // a named member, not promoted fields
		}
		var inherited []FieldNode
		for _, f := range fields {
			if len(f.Go.Index) > 1 && f.Go.Index[0] == i {
				inherited = append(inherited, f)
			}
		}
		base := Fields(e)
		if len(base) == 0 || len(inherited) != len(base) {
			continue // some member shadowed
		}
		same := true
		for j, f := range base {
			if inherited[j].Name != f.Name || inherited[j].Required != f.Required || inherited[j].Go.Type != f.Type {
				same = false
			}
		}
		if !same {
			continue
		}
		en, err := p.build(e, where+"."+sf.Name)
		if err != nil {
			continue // unreachable: its members built above
		}
		out = append(out, Embed{Index: i, Node: en})
	}
	return out
}

// MemberNames rewrites the parameter of a cross-member rule (see
// [CrossMember]) on a member of struct node n so it names the other
// members by their JSON names, as the model writes them: "TrackName"
// becomes "trackName". via limits the search to the members promoted
// through those embedded structs (a rule inside an embedded struct names
// its own siblings); other rules' parameters, and those of nodes built
// from JSON Schema, are returned unchanged.
func (n *Node) MemberNames(tag, param string, via ...string) string {
	if !crossMember[tag] || n == nil || n.Shape != Struct {
		return param
	}
	names := strings.Fields(param)
	for i, name := range names {
		for _, f := range n.Fields {
			if f.Go != nil && f.Go.GoName == name && hasPrefix(f.Go.Via, via) {
				names[i] = f.Name
				break
			}
		}
	}
	return strings.Join(names, " ")
}

// hasPrefix reports whether path starts with prefix.
func hasPrefix(path, prefix []string) bool {
	return len(path) >= len(prefix) && slices.Equal(path[:len(prefix)], prefix)
}

// EmptyArgsAccepted reports whether {} passes for Struct node n: no
// member is required, and (for Go-built nodes) none is required merely
// because another is absent (required_without, required_without_all,
// required_unless), so a declaration may mark the whole argument
// optional.
func (n *Node) EmptyArgsAccepted() bool {
	for _, f := range n.Fields {
		if f.Required {
			return false
		}
		if f.Go == nil {
			continue
		}
		rules, _ := SplitValidate(f.Go.Validate)
		for _, r := range rules {
			switch r.Tag {
			case "required_without", "required_without_all", "required_unless":
				return false
			}
		}
	}
	return true
}
