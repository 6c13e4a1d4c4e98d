package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// SchemaFunc describes a function known by JSON Schema instead of Go
// types: a tool of an upstream MCP server, or a catalogue known only at
// run time. Registered with [AddSchema], it is checked, dry-run, scoped,
// approved, audited, declared and searched exactly as a typed [Func] is.
type SchemaFunc struct {
	// Name is how code calls the function: namespace.Name. It must be a
	// valid JavaScript identifier.
	Name string
	// Description is shown to the model as the function's documentation.
	Description string
	// Tier says whether the function reads, changes or creates data.
	// Required: ReadOnly, Mutating or Creative (the zero value is refused).
	Tier Tier
	// Scopes lists OAuth scopes the caller must all hold.
	Scopes []string
	// Approval says whether the user must approve each call before it
	// runs; the zero value leaves it to the server's per-tier default.
	Approval Approval
	// InputSchema is required: the JSON Schema (draft 2020-12 or
	// draft-07) of the arguments object. Its root must describe an
	// object. Members it declares are checked like a Go struct's fields
	// (wrong types, required members, unknown members refused on MUTATING
	// and CREATIVE functions and warned about on READ-ONLY ones, with the
	// nearest declared member), bounds, lengths and enums are worded as
	// the validate tags of typed functions are, and every other keyword
	// is enforced by github.com/google/jsonschema-go.
	InputSchema json.RawMessage
	// OutputSchema optionally describes the result; without it the
	// result is declared as unknown. It types the declarations only: the
	// handler's result is not validated against it.
	OutputSchema json.RawMessage
	// Handler does the work. It receives the checked arguments as one JSON
	// object, without _validateOnly, without the unknown members a
	// READ-ONLY call ignored and without optional members given null, and
	// returns the result as JSON (nil means null). Its errors are treated
	// like a typed Handler's.
	Handler func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)
	// Validate optionally checks what needs the host, like Func.Validate:
	// it runs once the arguments pass the schema, before the handler, and
	// in dry runs, with the same arguments the handler would receive.
	Validate func(ctx context.Context, args json.RawMessage) error
}

// AddSchema registers f in c. Like [Add] it reports every problem it can
// find before the first call: an invalid or duplicate name, a missing
// handler, a missing or unknown tier, a malformed scope, a missing input
// schema, a schema that is not valid JSON Schema or whose root is not an
// object, a $ref that points nowhere or outside the document (remote
// schemas are never fetched), and a member named _validateOnly.
// Errors name the function and, where there is one, the schema path.
//
// Constructs a TypeScript declaration cannot show (not, if/then/else,
// patternProperties, several non-null types mixed with others) are not
// errors: their part of the declaration is unknown, and the schema
// validator still enforces them on every call.
func AddSchema(c *Catalog, f SchemaFunc) error {
	info := FuncInfo{Name: f.Name, Description: f.Description, Tier: f.Tier, Scopes: slices.Clone(f.Scopes), Approval: f.Approval,
		InputSchema: slices.Clone(f.InputSchema), OutputSchema: slices.Clone(f.OutputSchema)}
	wrap := func(err error) error { return fmt.Errorf("catalog: %s: %w", f.Name, err) }
	if err := checkInfo(info, f.Handler == nil); err != nil {
		return err
	}
	if len(f.InputSchema) == 0 {
		return wrap(errors.New("the InputSchema field is required"))
	}
	in, resolved, err := compileSchema(f.InputSchema)
	if err != nil {
		return wrap(fmt.Errorf("input schema: %w", err))
	}
	if in.Shape != jsontype.Struct {
		return wrap(errors.New("input schema: the root must describe an object with properties"))
	}
	if i, clash := in.ByName[ValidateOnlyKey]; clash {
		if !f.Tier.Strict() || in.Fields[i].Node.Shape != jsontype.Bool || in.Fields[i].Required {
			return wrap(fmt.Errorf("input schema: the member name %s is reserved for dry runs", ValidateOnlyKey))
		}
		// A schema made for this catalog (typegen.InputSchema) declares
		// the dry-run flag; the catalog handles it.
		in = withoutField(in, i)
	}
	out := &jsontype.Node{Shape: jsontype.Any}
	if len(f.OutputSchema) > 0 {
		if out, _, err = compileSchema(f.OutputSchema); err != nil {
			return wrap(fmt.Errorf("output schema: %w", err))
		}
	}
	info.args, info.result = in, out
	e := &entry{info: info, plan: in}
	e.run = func(c *Catalog, ctx context.Context, _ []byte, obj map[string]any, dry bool) (any, error) {
		dropUndeclared(in, obj)
		if is := c.ruleIssues(in, obj); len(is) > 0 {
			return nil, &ValidationError{Issues: is}
		}
		if resolved == nil {
			// The node states every constraint.
		} else if err := resolved.Validate(plainJSON(obj)); err != nil {
			return nil, &ValidationError{Issues: []Issue{{Path: []any{}, Message: schemaMessage(err)}}}
		}
		raw, err := json.Marshal(obj)
		if err != nil {
			return nil, err
		}
		if f.Validate != nil {
			if err := f.Validate(ctx, raw); err != nil {
				return nil, err
			}
		}
		if dry {
			return validResult{Valid: true}, nil
		}
		res, err := f.Handler(ctx, raw)
		if err != nil {
			return nil, err
		}
		if len(res) == 0 {
			res = json.RawMessage("null")
		}
		if !json.Valid(res) {
			return nil, errors.New("the handler returned invalid JSON")
		}
		return res, nil
	}
	e.tags = func(c *Catalog, args []byte) []Issue {
		obj, err := schemaArgs(in, args)
		if err != nil {
			return nil
		}
		return c.ruleIssues(in, obj)
	}
	return c.insert(e)
}

// MustAddSchema is like AddSchema but panics on a registration error.
func MustAddSchema(c *Catalog, f SchemaFunc) {
	if err := AddSchema(c, f); err != nil {
		panic(err)
	}
}

// Remove unregisters the function name and reports whether it was
// registered. Calls already running finish; later calls get
// ErrUnknownFunction. It suits catalogues that follow a changing source,
// such as an upstream server's tool list.
func (c *Catalog) Remove(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.funcs[name]; !ok {
		return false
	}
	delete(c.funcs, name)
	c.version++
	return true
}

// Version returns a number that changes whenever a function is added or
// removed, so that what is derived from the catalog (declarations,
// schemas, a search index) can be cached and rebuilt when it is stale.
func (c *Catalog) Version() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.version
}

// insert adds a checked entry under a unique name.
func (c *Catalog) insert(e *entry) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.funcs[e.info.Name]; dup {
		return fmt.Errorf("catalog: function %s.%s is already registered", c.ns, e.info.Name)
	}
	c.funcs[e.info.Name] = e
	c.version++
	return nil
}

// compileSchema builds the node of a schema and resolves it for the
// validator, which enforces what the node does not model; the resolved
// schema is nil when the node models it all.
func compileSchema(raw json.RawMessage) (*jsontype.Node, *jsonschema.Resolved, error) {
	// First: its errors name the schema path, and it bounds the schema
	// (size, depth, recursion) before the validator's own reader and
	// resolver, which have no bounds, see it.
	n, complete, err := jsontype.FromSchema(raw)
	if err != nil {
		return nil, nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, nil, fmt.Errorf("not a JSON Schema: %w", err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, nil, err
	}
	if complete {
		resolved = nil // the node states it all: no second pass needed
	}
	return n, resolved, nil
}

// schemaArgs parses checked arguments and drops what the handler must
// not see: _validateOnly, members a lenient call ignored, and optional
// members given null.
func schemaArgs(n *node, args []byte) (map[string]any, error) {
	v, verr := parseArgs(args)
	if verr != nil {
		return nil, verr
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, notObject(v)
	}
	delete(obj, ValidateOnlyKey)
	dropUndeclared(n, obj)
	return obj, nil
}

// dropUndeclared removes, at every level, the members a struct node does
// not declare and the optional members given null. It follows the value,
// which is finite, so a recursive node cannot make it loop.
func dropUndeclared(n *node, v any) {
	for n != nil && n.Shape == kPtr {
		n = n.Elem
	}
	if n == nil {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		switch n.Shape {
		case kStruct:
			for k, val := range x {
				i, ok := n.ByName[k]
				switch {
				case !ok && !n.Open:
					delete(x, k)
				case !ok:
					dropUndeclared(n.Elem, val)
				case val == nil && !n.Fields[i].Required:
					delete(x, k)
				default:
					dropUndeclared(n.Fields[i].Node, val)
				}
			}
		case kMap:
			for _, val := range x {
				dropUndeclared(n.Elem, val)
			}
		}
	case []any:
		for i, val := range x {
			if i < len(n.Items) {
				dropUndeclared(n.Items[i], val)
			} else {
				dropUndeclared(n.Elem, val)
			}
		}
	}
}

// plainJSON converts parsed arguments to the types the schema validator
// expects (float64 numbers).
func plainJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = plainJSON(e)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainJSON(e)
		}
		return out
	}
	return v
}

// schemaMessage words a schema validator's failure: its innermost
// clause, without the chain of "validating …" prefixes.
func schemaMessage(err error) string {
	msg := err.Error()
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			break
		}
		_, after, found := strings.Cut(rest, ": ")
		if !found {
			break
		}
		msg = after
	}
	return "Does not match the schema: " + msg
}

// withoutField returns a copy of struct node n without its i-th member.
func withoutField(n *node, i int) *node {
	c := *n
	c.Fields = slices.Delete(slices.Clone(n.Fields), i, i+1)
	c.ByName = make(map[string]int, len(c.Fields))
	for j, f := range c.Fields {
		c.ByName[f.Name] = j
	}
	return &c
}
