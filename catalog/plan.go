package catalog

import (
	"fmt"
	"reflect"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// kind is how a Go type is checked against a decoded JSON value: the
// shape jsontype gives it, shared with typegen's declarations.
type kind = jsontype.Shape

const (
	kBool   = jsontype.Bool
	kInt    = jsontype.Int
	kUint   = jsontype.Uint
	kFloat  = jsontype.Float
	kString = jsontype.String
	kTime   = jsontype.Time   // time.Time: an RFC 3339 string
	kBytes  = jsontype.Bytes  // []byte: a base64 string
	kText   = jsontype.Text   // encoding.TextUnmarshaler: any string
	kCustom = jsontype.Custom // json.Unmarshaler or json.RawMessage: any JSON, checked by its own decoder
	kAny    = jsontype.Any    // interface{}: any JSON
	kPtr    = jsontype.Ptr
	kSlice  = jsontype.Slice
	kArray  = jsontype.Array
	kMap    = jsontype.Map
	kStruct = jsontype.Struct
)

// node is the precomputed decoding plan for one Go type, built once at
// registration so Call does no reflection over struct tags.
type node struct {
	kind   kind
	typ    reflect.Type
	bits   int   // size of int/uint kinds
	elem   *node // ptr, slice, array, map
	length int   // array length
	keyInt bool  // map keys are integers
	keyU   bool  // map keys are unsigned integers
	fields []fieldNode
	byName map[string]int
}

type fieldNode struct {
	name     string
	required bool
	n        *node
}

// planner builds nodes and reports Go types that cannot cross JSON.
type planner struct {
	input bool // building for arguments (decoding) rather than results
	memo  map[reflect.Type]*node
}

func buildPlan(t reflect.Type, input bool) (*node, error) {
	p := &planner{input: input, memo: map[reflect.Type]*node{}}
	return p.build(t, t.String())
}

func (p *planner) build(t reflect.Type, where string) (*node, error) {
	if n, ok := p.memo[t]; ok {
		return n, nil
	}
	n := &node{typ: t, kind: jsontype.ShapeOf(t, p.input)}
	p.memo[t] = n
	switch n.kind {
	case kInt, kUint, kFloat:
		n.bits = t.Bits()
	case jsontype.Unsupported:
		if t.Kind() == reflect.Interface {
			return nil, fmt.Errorf("%s: interface type %s cannot cross JSON; use any or a concrete type", where, t)
		}
		return nil, fmt.Errorf("%s: %s values cannot cross JSON", where, t)
	case kPtr:
		e, err := p.build(t.Elem(), where)
		if err != nil {
			return nil, err
		}
		n.elem = e
	case kSlice, kArray:
		if n.kind == kArray {
			n.length = t.Len()
		}
		e, err := p.build(t.Elem(), where+"[]")
		if err != nil {
			return nil, err
		}
		n.elem = e
	case kMap:
		k := t.Key()
		switch {
		case k.Kind() == reflect.String:
		case jsontype.TextKey(k):
		case k.Kind() >= reflect.Int && k.Kind() <= reflect.Int64:
			n.keyInt = true
		case k.Kind() >= reflect.Uint && k.Kind() <= reflect.Uintptr:
			n.keyInt, n.keyU = true, true
		default:
			return nil, fmt.Errorf("%s: map key type %s cannot cross JSON; use string keys", where, k)
		}
		e, err := p.build(t.Elem(), where+"[key]")
		if err != nil {
			return nil, err
		}
		n.elem = e
	case kStruct:
		fields := jsontype.Fields(t)
		if len(fields) == 0 && t.NumField() > 0 {
			return nil, fmt.Errorf("%s: struct %s has no exported fields, so it cannot cross JSON", where, t)
		}
		n.byName = make(map[string]int, len(fields))
		for _, f := range fields {
			if f.Quoted {
				return nil, fmt.Errorf("%s.%s: the json \",string\" option is not supported; use the plain type", where, f.GoName)
			}
			if err := jsontype.CheckDoc(f.Doc); err != nil {
				return nil, fmt.Errorf("%s.%s: %w", where, f.GoName, err)
			}
			fn, err := p.build(f.Type, where+"."+f.GoName)
			if err != nil {
				return nil, err
			}
			n.byName[f.Name] = len(n.fields)
			n.fields = append(n.fields, fieldNode{name: f.Name, required: f.Required, n: fn})
		}
	}
	return n, nil
}
