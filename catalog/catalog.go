// Package catalog registers typed Go functions that AI-written code may
// call, and runs those calls: it decodes JSON arguments without coercion,
// validates them, checks the caller's scopes, supports dry runs, and turns
// every failure into an error whose JSON form is safe and useful to show
// the model.
//
// Most services start with package codemode, which builds on this one (see
// its documentation); use this package directly for finer control.
//
// Functions belong to one of three tiers. READ-ONLY functions decode
// arguments flexibly: unknown fields do not fail the call, but each one
// ignored is returned by CallWithWarnings as a Warning naming the nearest
// declared field (getSessions ignored unknown field "track" (did you mean
// "trackName"?)), for the model to see. MUTATING and CREATIVE functions
// decode strictly (unknown fields are rejected at every nesting level,
// with the nearest declared field) and accept "_validateOnly": true, which decodes, validates and runs
// the Validate hook without calling the handler. READ-ONLY functions reject
// "_validateOnly" with a validation issue, since a read has nothing to dry
// run and silently ignoring it would mislead the caller.
//
// A struct field is required (must be present in arguments, always present
// in results) unless it is a pointer, an interface, a json.RawMessage, or
// tagged omitempty or omitzero; a validate:"required" tag makes any field
// required. typegen declares exactly these fields as non-optional. A
// required field given null is reported like a wrong type; an optional
// field given null counts as absent.
//
// validate:"…" tags constrain members with go-playground/validator's
// rules, as validator/v10 applies them, but only the rules the library
// words for the model and declares to it: required, required_if,
// required_unless, required_with, required_with_all, required_without,
// required_without_all, oneof, min, max, gte, lte, gt, lt, len, eq, ne,
// email, url, http_url, uri, uuid, uuid3, uuid4, uuid5, uuid_rfc4122,
// uuid4_rfc4122, ipv4, ipv6, ip, hostname, hostname_rfc1123, fqdn, alpha,
// alphanum, numeric, number, ascii, printascii, hexcolor, e164,
// iso3166_1_alpha2, lowercase, uppercase, timezone, json, unique,
// contains, excludes, startswith, endswith and datetime. omitempty,
// omitzero and omitnil stop the rest of a tag for an absent value, dive
// applies the rest to each element of a slice, array or map (keys …
// endkeys to a map's keys), "|" joins alternatives, and a tag of "-"
// skips the member. Lengths count characters; min and max bound numbers,
// the length of strings and the number of items; cross-member rules name
// members by their Go names, and their messages by their JSON names. A
// rule reaches the elements of a slice or map only through dive, and the
// members of a nested struct always. Registration ([Add]) refuses any
// other rule, a rule that cannot apply to its field's type (oneof on a
// float, dive on a string, keys outside a map), a malformed parameter
// (min=abc) and a cross-member rule naming no member, each with the field
// and its tag.
//
// Decoding never coerces: "5" is not a number, 1.5 is not an integer,
// "true" is not a boolean. Member names match exactly (encoding/json would
// also accept "SessionID" for "sessionId"), a member given twice is an
// error, and absent or null arguments mean {}. Problems are reported as
// Issues with a JSON path such as ["corners", 0, "verdict"], in two
// rounds at most: first everything the decoding and the validate tags find,
// together (a wrong type, an unknown field and a bad enum value in one
// error; members that decoded fine are still checked against their tags);
// then, only once those pass, the function's Validate hook, which can
// assume well-formed arguments.
//
// Results are encoded like encoding/json, except that nil slices and maps
// become [] and {} (a declared array is always an array) and null-valued
// object members are removed unless Options.KeepNulls is set. Nulls inside
// arrays are kept.
//
// A function known only by JSON Schema (a tool of an upstream MCP
// server, a catalogue loaded at run time) is registered with [AddSchema]
// and behaves the same: its input schema is turned into the same type
// model typed functions are checked against, so it gets the same checks,
// messages, warnings, dry runs, scopes and approvals; what the model does
// not state is enforced by a JSON Schema validator. [Catalog.Remove] and
// [Catalog.Version] serve catalogues that follow a changing source.
//
// Handlers report failures the model should read with NotFound, Conflict,
// Invalid, *Error or *ValidationError. Any other error, and any panic, is
// logged with a random reference and shown only as
// "internal error (ref 1a2b3c4d)".
package catalog

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// Options configures a Catalog. The zero value is the documented default.
type Options struct {
	// AllowAnonymous lets Call run without a Principal in the context.
	// Functions that require scopes still fail for anonymous callers.
	AllowAnonymous bool
	// KeepNulls keeps null-valued object members in results. By default
	// they are removed.
	KeepNulls bool
	// Logger receives the causes of internal errors. Nil means the logger
	// of the call's context ([WithLogger]; codemode.Server passes its own),
	// else slog.Default().
	Logger *slog.Logger
}

// Catalog is a namespace of functions, typed or known by JSON Schema. It
// is safe for concurrent use.
type Catalog struct {
	ns   string
	opts Options

	mu      sync.RWMutex
	funcs   map[string]*entry
	version uint64 // bumped by every registration and removal
}

// FuncInfo describes a registered function for introspection.
type FuncInfo struct {
	Name        string
	Description string
	Tier        Tier
	Scopes      []string
	Approval    Approval
	// In and Out are the Go argument and result types of a function
	// registered with Add; nil for one registered with AddSchema.
	In, Out reflect.Type
	// InputSchema and OutputSchema are the JSON Schemas a function
	// registered with AddSchema was given (OutputSchema may be nil); nil
	// for one registered with Add, whose schemas typegen derives.
	InputSchema, OutputSchema json.RawMessage

	args, result *jsontype.Node // the type model both kinds share
}

// Nodes returns the type model of the function's arguments and result,
// the one the catalog checks calls against, built at registration from
// the Go types (Add) or the schemas (AddSchema). Both are nil for a
// FuncInfo the catalog did not produce.
//
// The node type lives in an internal package: Nodes is for this module's
// own packages (typegen renders the nodes, codemode's discovery indexes
// them). Other callers read In and Out, or InputSchema and OutputSchema.
func (f FuncInfo) Nodes() (args, result *jsontype.Node) { return f.args, f.result }

// New returns an empty catalog whose functions are called as
// namespace.name. The namespace must be a valid JavaScript identifier.
func New(namespace string, opts *Options) (*Catalog, error) {
	if err := checkIdent(namespace); err != nil {
		return nil, fmt.Errorf("catalog: namespace %w", err)
	}
	c := &Catalog{ns: namespace, funcs: map[string]*entry{}}
	if opts != nil {
		c.opts = *opts
	}
	return c, nil
}

// Namespace returns the namespace the catalog's functions live in.
func (c *Catalog) Namespace() string { return c.ns }

// Functions describes every registered function, sorted by name.
func (c *Catalog) Functions() []FuncInfo {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]FuncInfo, 0, len(c.funcs))
	for _, e := range c.funcs {
		info := e.info
		info.Scopes = slices.Clone(info.Scopes)
		info.InputSchema, info.OutputSchema = slices.Clone(info.InputSchema), slices.Clone(info.OutputSchema)
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b FuncInfo) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out
}

func (c *Catalog) lookup(name string) (*entry, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.funcs[name]
	return e, ok
}

// AllowsAnonymous reports whether the catalog runs calls without a
// Principal ([Options.AllowAnonymous]).
func (c *Catalog) AllowsAnonymous() bool { return c.opts.AllowAnonymous }
