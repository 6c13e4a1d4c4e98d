package mcpsource

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
)

// ToolOptions configures AddTool. The zero value (or nil) registers the
// tool in the catalogue only, under its derived name, tier and approval.
type ToolOptions struct {
	ToolConfig
	// Server, if set, also gets the tool as a plain MCP tool, added with
	// mcp.AddTool from the same declaration and handler.
	Server *mcp.Server
}

// AddTool registers a go-sdk tool in c, from the same *mcp.Tool and typed
// handler that mcp.AddTool takes, so a server's existing tools become
// catalogue functions without restating them.
//
// The function's name, tier and approval come from the tool (see FuncName
// and TierOf) unless opts overrides them. Its input schema is the tool's
// InputSchema, or the one go-sdk infers from In; its output schema is the
// tool's OutputSchema, or the one inferred from Out unless Out is any.
// The catalogue validates arguments against the input schema; defaults it
// declares are applied before the arguments are decoded into In, as
// mcp.AddTool does.
//
// The handler gets a real *mcp.CallToolRequest: its Params name the tool
// and carry the arguments, and its Session and Extra (token info, headers)
// are those of the request in the call's context (see WithRequest), which
// codemode sets to the execute_code request. A handler error or an
// IsError result reaches the model as the tool's own text, with code
// catalog.CodeToolError. A result is the output value when Out is not
// any, else the result's StructuredContent, else its Content as values
// (see the package documentation).
//
// AddTool fails, changing nothing, on what registration can find: a nil
// tool or handler, schemas that cannot be inferred or compiled, a tier
// the catalogue refuses, or a name already taken in c (a converted name
// says which tool name it came from, so the host can set opts.Name).
func AddTool[In, Out any](c *catalog.Catalog, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts *ToolOptions) error {
	if t == nil || h == nil {
		return errors.New("mcpsource: AddTool needs a tool and a handler")
	}
	var o ToolOptions
	if opts != nil {
		o = *opts
	}
	name, tier, ap := o.resolve(t, unannotated{})
	wrap := func(err error) error { return fmt.Errorf("mcpsource: tool %q: %w", t.Name, err) }

	in, inResolved, err := schemaFor[In](t.InputSchema)
	if err != nil {
		return wrap(fmt.Errorf("input schema: %w", err))
	}
	var out json.RawMessage
	anyOut := reflect.TypeFor[Out]() == reflect.TypeFor[any]()
	if t.OutputSchema != nil || !anyOut {
		if out, _, err = schemaFor[Out](t.OutputSchema); err != nil {
			return wrap(fmt.Errorf("output schema: %w", err))
		}
	} else {
		out = contentSchema // a result without structured content: its content as values
	}
	if name != t.Name && slices.ContainsFunc(c.Functions(), func(f catalog.FuncInfo) bool { return f.Name == name }) {
		return wrap(fmt.Errorf("its name converts to %s, which %s already has; set ToolOptions.Name", name, c.Namespace()))
	}
	hasDefaults := bytes.Contains(in, []byte(`"default"`))

	err = catalog.AddSchema(c, catalog.SchemaFunc{
		Name: name, Description: t.Description, Tier: tier, Scopes: o.Scopes, Approval: ap,
		InputSchema: in, OutputSchema: out,
		Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			if hasDefaults {
				filled, err := withDefaults(inResolved, args)
				if err != nil {
					return nil, err
				}
				args = filled
			}
			var v In
			if err := json.Unmarshal(args, &v); err != nil {
				return nil, toolError(err.Error())
			}
			res, outv, err := h(ctx, derive(ctx, t.Name, args), v)
			if err != nil {
				return nil, toolError(err.Error())
			}
			if res != nil && res.IsError {
				return nil, toolError(errorText(res))
			}
			if !anyOut || any(outv) != nil {
				if rv := reflect.ValueOf(outv); !rv.IsValid() || rv.Kind() != reflect.Pointer || !rv.IsNil() {
					return json.Marshal(outv)
				}
			}
			if res == nil {
				return json.RawMessage("null"), nil
			}
			return resultJSON(res)
		},
	})
	if err != nil {
		return wrap(err)
	}
	if o.Server != nil {
		mcp.AddTool(o.Server, t, h)
	}
	return nil
}

// schemaFor returns the JSON of declared, or of the schema go-sdk infers
// from T when declared is nil, and its compiled form.
func schemaFor[T any](declared any) (json.RawMessage, *jsonschema.Resolved, error) {
	var s *jsonschema.Schema
	switch d := declared.(type) {
	case nil:
		if reflect.TypeFor[T]() == reflect.TypeFor[any]() {
			s = &jsonschema.Schema{Type: "object"}
			break
		}
		var err error
		if s, err = jsonschema.For[T](nil); err != nil {
			return nil, nil, err
		}
	case *jsonschema.Schema:
		s = d
	default:
		b, err := json.Marshal(d)
		if err != nil {
			return nil, nil, err
		}
		s = new(jsonschema.Schema)
		if err := json.Unmarshal(b, s); err != nil {
			return nil, nil, err
		}
	}
	rs, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, nil, err
	}
	b, err := json.Marshal(s)
	return b, rs, err
}

// withDefaults fills in the defaults the input schema declares.
func withDefaults(rs *jsonschema.Resolved, args json.RawMessage) (json.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil {
		return nil, toolError(err.Error())
	}
	if m == nil {
		m = map[string]any{}
	}
	if err := rs.ApplyDefaults(&m); err != nil {
		return nil, toolError(err.Error())
	}
	return json.Marshal(m)
}
