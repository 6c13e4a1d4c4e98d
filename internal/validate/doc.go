// Package validate checks the validate:"…" tags of typed functions'
// arguments for package catalog, in place of go-playground/validator,
// whose rules and semantics it keeps for the vocabulary the library
// documents.
//
// The vocabulary is jsontype's rule table ([jsontype.LookupRule]), the
// one the model's messages, the JSON Schema keywords and the .d.ts JSDoc
// come from, so a rule is accepted exactly when the model can be told of
// it. Around those rules a tag may use omitempty, omitzero and omitnil
// (stop for an absent value), dive (the rest applies to each element of a
// slice, array or map), keys … endkeys (after dive: to a map's keys), "|"
// (alternatives) and "-" (skip the member). 0x2C and 0x7C in a parameter
// stand for "," and "|".
//
// [Compile] reads a Go struct's [jsontype.Node] once, at registration,
// and parses every tag reachable from it, refusing with the Go field and
// its tag: a rule outside the table, a rule the field's type cannot take
// (where validator/v10 panics at call time), a malformed parameter, and a
// cross-member rule naming no member (which validator/v10 took as
// absent). [Plan.Check] then walks a decoded value as validator/v10 does:
// members in encoding/json order, nested structs always (through
// pointers), elements only through dive, the first failed rule of a tag
// ending it; with validator.WithRequiredStructEnabled's meaning of
// required on a struct, a value behind a pointer counting as given, and
// string lengths in runes. Each [Issue] carries the JSON path of the value
// and the table's words, with sibling names in cross-member rules given by
// their JSON names. Members encoding/json never sets (json:"-", shadowed)
// are not checked, the fields of a struct type that decodes itself
// (json.Unmarshaler, encoding.TextUnmarshaler) are not walked, and map
// entries are checked in key order.
//
// [Holds] runs one rule on a value parsed from JSON, for the rules that
// functions known by JSON Schema carry on their nodes (minLength as min,
// format email as email…).
//
// A differential test in the module internal/integration holds all of
// this to validator/v10 on seeded random rules, types, values and struct
// types.
package validate
