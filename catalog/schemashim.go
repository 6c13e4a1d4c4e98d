package catalog

// TEMPORARY: a minimal stand-in for the JSON-Schema functions that branch
// schema adds (SchemaFunc, AddSchema, Remove, Version), so that package
// mcpsource compiles and its tests run before that branch lands. It is
// deleted when branch schema is merged.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaFunc describes a function known by its JSON Schemas.
type SchemaFunc struct {
	Name, Description string
	Tier              Tier
	Scopes            []string
	Approval          Approval
	InputSchema       json.RawMessage
	OutputSchema      json.RawMessage
	Handler           func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)
	Validate          func(ctx context.Context, args json.RawMessage) error
}

var shimVersions atomic.Uint64

// AddSchema registers f in c.
func AddSchema(c *Catalog, f SchemaFunc) error {
	raw := reflect.TypeFor[json.RawMessage]()
	info := FuncInfo{Name: f.Name, Description: f.Description, Tier: f.Tier, Scopes: append([]string(nil), f.Scopes...), Approval: f.Approval, In: reflect.TypeFor[struct{}](), Out: raw}
	e, err := newEntry(c, info, f.Handler == nil)
	if err != nil {
		return err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(f.InputSchema, &s); err != nil {
		return fmt.Errorf("catalog: %s: input schema: %w", f.Name, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("catalog: %s: input schema: %w", f.Name, err)
	}
	if len(f.OutputSchema) > 0 {
		var o jsonschema.Schema
		if err := json.Unmarshal(f.OutputSchema, &o); err != nil {
			return fmt.Errorf("catalog: %s: output schema: %w", f.Name, err)
		}
		if _, err := o.Resolve(nil); err != nil {
			return fmt.Errorf("catalog: %s: output schema: %w", f.Name, err)
		}
	}
	plan := &node{kind: kStruct, byName: map[string]int{}}
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	for name := range s.Properties {
		plan.byName[name] = len(plan.fields)
		plan.fields = append(plan.fields, fieldNode{name: name, required: req[name], n: &node{kind: kAny}})
	}
	e.plan = plan
	e.run = func(c *Catalog, ctx context.Context, args []byte, dry bool) (any, error) {
		var v map[string]any
		if err := json.Unmarshal(args, &v); err != nil {
			return nil, err
		}
		delete(v, validateOnlyKey)
		if err := rs.Validate(v); err != nil {
			return nil, &ValidationError{Issues: []Issue{{Path: []any{}, Message: err.Error()}}}
		}
		clean, _ := json.Marshal(v)
		if f.Validate != nil {
			if err := f.Validate(ctx, clean); err != nil {
				return nil, err
			}
		}
		if dry {
			return validResult{Valid: true}, nil
		}
		out, err := f.Handler(ctx, clean)
		if err != nil {
			return nil, err
		}
		if len(out) == 0 {
			return nil, errors.New("handler returned no JSON")
		}
		return json.RawMessage(out), nil
	}
	e.tags = func(*Catalog, []byte) []Issue { return nil }
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.funcs[f.Name]; dup {
		return fmt.Errorf("catalog: function %s.%s is already registered", c.ns, f.Name)
	}
	c.funcs[f.Name] = e
	shimVersions.Add(1)
	return nil
}

// Remove unregisters name and reports whether it was registered.
func (c *Catalog) Remove(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.funcs[name]; !ok {
		return false
	}
	delete(c.funcs, name)
	shimVersions.Add(1)
	return true
}

// Version changes on every AddSchema and Remove.
func (c *Catalog) Version() uint64 { return shimVersions.Load() }
