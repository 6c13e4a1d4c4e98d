package jsontype

import (
	"encoding"
	"encoding/json"
	"reflect"
	"time"
)

// Shape is how a Go type crosses JSON. catalog decodes by it, typegen
// declares and describes by it, so a type is never, say, a number to one
// and a string to the other.
type Shape uint8

// The shapes, by the JSON a value of the type is read from or written as.
const (
	Unsupported Shape = iota // chan, func, complex, unsafe pointer, non-empty interface
	Bool
	Int    // signed integer kinds
	Uint   // unsigned integer kinds
	Float  // float32, float64
	String // string kinds
	Time   // time.Time: an RFC 3339 string
	Bytes  // []byte: a base64 string
	Text   // encoding.TextUnmarshaler / TextMarshaler: any string
	Custom // json.Unmarshaler / Marshaler or json.RawMessage: any JSON
	Any    // the empty interface: any JSON
	Ptr
	Slice
	Array
	Map
	Struct
)

// Integer reports whether s is a whole-number shape.
func (s Shape) Integer() bool { return s == Int || s == Uint }

// Number reports whether s is any numeric shape.
func (s Shape) Number() bool { return s == Int || s == Uint || s == Float }

var (
	timeType            = reflect.TypeFor[time.Time]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	jsonMarshalerType   = reflect.TypeFor[json.Marshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
)

// Implements reports whether t or *t implements iface.
func Implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || reflect.PointerTo(t).Implements(iface)
}

// ShapeOf classifies t. input selects the decoding side (json.Unmarshaler,
// encoding.TextUnmarshaler) rather than the encoding side (json.Marshaler,
// encoding.TextMarshaler) when deciding whether t handles its own JSON.
func ShapeOf(t reflect.Type, input bool) Shape {
	switch {
	case t == timeType:
		return Time
	case IsRawMessage(t):
		return Custom
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && selfCoded(t, input):
		return Custom
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && textCoded(t, input):
		return Text
	}
	switch t.Kind() {
	case reflect.Bool:
		return Bool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return Int
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return Uint
	case reflect.Float32, reflect.Float64:
		return Float
	case reflect.String:
		return String
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return Unsupported
		}
		return Any
	case reflect.Pointer:
		return Ptr
	case reflect.Slice:
		if e := t.Elem(); e.Kind() == reflect.Uint8 && !selfCoded(e, input) && !textCoded(e, input) {
			return Bytes
		}
		return Slice
	case reflect.Array:
		return Array
	case reflect.Map:
		return Map
	case reflect.Struct:
		return Struct
	}
	return Unsupported
}

func selfCoded(t reflect.Type, input bool) bool {
	if input {
		return Implements(t, jsonUnmarshalerType)
	}
	return Implements(t, jsonMarshalerType)
}

func textCoded(t reflect.Type, input bool) bool {
	if input {
		return Implements(t, textUnmarshalerType)
	}
	return Implements(t, textMarshalerType)
}

// TextKey reports whether map key type k crosses JSON as a string through
// encoding.Text*, which encoding/json requires both ways.
func TextKey(k reflect.Type) bool {
	return Implements(k, textUnmarshalerType) && Implements(k, textMarshalerType)
}
