package catalog

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// kind is how a Go type is checked against a decoded JSON value.
type kind uint8

const (
	kBool kind = iota
	kInt
	kUint
	kFloat
	kString
	kTime   // time.Time: an RFC 3339 string
	kBytes  // []byte: a base64 string
	kText   // encoding.TextUnmarshaler: any string
	kCustom // json.Unmarshaler or json.RawMessage: any JSON, checked by its own decoder
	kAny    // interface{}: any JSON
	kPtr
	kSlice
	kArray
	kMap
	kStruct
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

var (
	timeType            = reflect.TypeFor[time.Time]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	jsonMarshalerType   = reflect.TypeFor[json.Marshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
)

// planner builds nodes and reports Go types that cannot cross JSON.
type planner struct {
	input bool // building for arguments (decoding) rather than results
	memo  map[reflect.Type]*node
}

func buildPlan(t reflect.Type, input bool) (*node, error) {
	p := &planner{input: input, memo: map[reflect.Type]*node{}}
	return p.build(t, t.String())
}

func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

func (p *planner) build(t reflect.Type, where string) (*node, error) {
	if n, ok := p.memo[t]; ok {
		return n, nil
	}
	n := &node{typ: t}
	p.memo[t] = n
	switch {
	case t == timeType:
		n.kind = kTime
		return n, nil
	case jsontype.IsRawMessage(t):
		n.kind = kCustom
		return n, nil
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && p.custom(t):
		n.kind = kCustom
		return n, nil
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && p.text(t):
		n.kind = kText
		return n, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		n.kind = kBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.kind, n.bits = kInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n.kind, n.bits = kUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		n.kind, n.bits = kFloat, t.Bits()
	case reflect.String:
		n.kind = kString
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return nil, fmt.Errorf("%s: interface type %s cannot cross JSON; use any or a concrete type", where, t)
		}
		n.kind = kAny
	case reflect.Pointer:
		n.kind = kPtr
		e, err := p.build(t.Elem(), where)
		if err != nil {
			return nil, err
		}
		n.elem = e
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && !p.custom(t.Elem()) && !p.text(t.Elem()) {
			n.kind = kBytes
			return n, nil
		}
		n.kind = kSlice
		if t.Kind() == reflect.Array {
			n.kind, n.length = kArray, t.Len()
		}
		e, err := p.build(t.Elem(), where+"[]")
		if err != nil {
			return nil, err
		}
		n.elem = e
	case reflect.Map:
		n.kind = kMap
		k := t.Key()
		switch {
		case k.Kind() == reflect.String:
		case implements(k, textUnmarshalerType) && implements(k, textMarshalerType):
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
	case reflect.Struct:
		n.kind = kStruct
		fields := jsontype.Fields(t)
		if len(fields) == 0 && t.NumField() > 0 {
			return nil, fmt.Errorf("%s: struct %s has no exported fields, so it cannot cross JSON", where, t)
		}
		n.byName = make(map[string]int, len(fields))
		for _, f := range fields {
			if f.Quoted {
				return nil, fmt.Errorf("%s.%s: the json \",string\" option is not supported; use the plain type", where, f.GoName)
			}
			fn, err := p.build(f.Type, where+"."+f.GoName)
			if err != nil {
				return nil, err
			}
			n.byName[f.Name] = len(n.fields)
			n.fields = append(n.fields, fieldNode{name: f.Name, required: f.Required, n: fn})
		}
	default: // chan, func, complex, unsafe pointer
		return nil, fmt.Errorf("%s: %s values cannot cross JSON", where, t)
	}
	return n, nil
}

// custom reports whether t decodes (input) or encodes (output) itself as JSON.
func (p *planner) custom(t reflect.Type) bool {
	if p.input {
		return implements(t, jsonUnmarshalerType)
	}
	return implements(t, jsonMarshalerType)
}

// text reports whether t crosses JSON as a string through encoding.Text*.
func (p *planner) text(t reflect.Type) bool {
	if p.input {
		return implements(t, textUnmarshalerType)
	}
	return implements(t, textMarshalerType)
}
