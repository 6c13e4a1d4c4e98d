// Package jsontype is the library's one model of the JSON a function
// takes and gives, and the rules for how Go types cross JSON.
//
// # The model
//
// A [Node] describes the values of one type as JSON. It is built once, at
// registration, from a Go type ([FromGo]) or from a JSON Schema
// ([FromSchema]), and from then on it is all that is read: catalog checks
// a call's arguments against it (the plan check, the rules, the paths of
// issues, the validate tags it finds at registration), typegen renders
// declarations and JSON Schemas from it, and internal/discover indexes
// and sketches it. Those packages reach a registered function's nodes
// through catalog.FuncInfo.Nodes. Because nothing downstream looks past
// the Node, a function known by JSON Schema is checked, declared and
// searched exactly as a typed one is: typegen's twin test proves a Go
// function and its schema give byte-identical declarations.
//
// What each [Shape] means, for a node of either origin:
//
//   - Bool, Int, Uint, Float, String: a JSON boolean, number or string.
//     Bits is the size of a number (64 for schema numbers); Int and Uint
//     must be whole.
//   - Time: an RFC 3339 string (time.Time; format date-time). Bytes: a
//     base64 string ([]byte; contentEncoding base64). Text: any string,
//     read by the type's encoding.TextUnmarshaler.
//   - Custom: any JSON, read by the type's own json.Unmarshaler (or kept
//     raw, json.RawMessage). Any: any JSON (the empty interface, a schema
//     that constrains nothing the model can state, or a union: Variants
//     then lists the alternatives of a oneOf/anyOf).
//   - Ptr: Elem, or null. Required is a member's property, not the
//     pointer's: a Ptr says only that null is accepted.
//   - Slice: an array of Elem. Array: a fixed array of Length Elem (Go
//     arrays), or a tuple: Items are the positional types and Length is
//     their count, -1 when more items of type Elem may follow.
//   - Map: an object used as a record of Elem (KeyInt, KeyU: Go integer
//     keys, written as strings).
//   - Struct: an object with the members Fields, in declaration order,
//     ByName indexing them. Open marks an object that also accepts members
//     it does not declare (typed by Elem).
//   - Unsupported: a Go type that cannot cross JSON, which FromGo refuses;
//     from a schema, a $ref that resolves only to itself, which readers
//     treat as any JSON.
//
// Nodes may be cyclic (a recursive Go type or $ref): a walker remembers
// the nodes it has entered, or follows a finite value.
//
// # The two builders
//
// [FromGo] mirrors encoding/json (and, for arguments, the catalog's
// decoding): struct members are the fields encoding/json sees, embedded
// structs flattened, under their JSON names ([Fields]); a member is
// required unless it is a pointer, an interface, a json.RawMessage or
// tagged omitempty/omitzero, and validate:"required" makes any member
// required. Each member keeps its Go field (FieldNode.Go: validate tag,
// Go name, index and embedding path), and a struct lists the named
// structs it embeds whole (Embeds). input chooses the decoding side of
// types that code themselves. It fails, naming the path, for what cannot
// cross JSON: chan, func, complex, non-empty interfaces, structs without
// exported fields, maps with keys JSON cannot carry, ",string" fields and
// key=value jsonschema tags. A Go type gives one node per type within one
// call, so node identity is type identity there.
//
// [FromSchema] reads JSON Schema draft 2020-12 or draft-07 in its source
// order, so members keep their author's order. Local $ref are followed
// (a recursive one is a cycle); a $defs/definitions entry or a title
// names a Struct (Name); descriptions, defaults, formats and patterns are
// kept for the declarations; bounds, lengths, item counts, uniqueItems
// and the email, uri and uuid formats become validate rules (Rules) so
// they fail and are documented as a Go tag's would; enum and const of
// scalars are Enum. What the model cannot state becomes Any rather than
// an error, and FromSchema reports whether the node is complete: when it
// is not, the caller must also run a JSON Schema validator.
//
// # The rules beside the model
//
// The validate-rule table ([LookupRule]) gives, for each validate tag,
// the model's message, the JSON Schema keywords and the JSDoc, so
// catalog, typegen's schemas and its declarations word a rule alike.
// [ShapeOf] classifies Go types, and [Fields] lists a struct's members
// as encoding/json does, for both builders and their callers.
package jsontype
