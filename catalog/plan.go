package catalog

import "github.com/brakinglab/codemode-go/internal/jsontype"

// node is the model arguments are checked against: jsontype's, shared
// with typegen and discovery, built from a Go type or a JSON Schema.
type node = jsontype.Node

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
