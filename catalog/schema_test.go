package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
)

// echo returns its arguments, so a test sees exactly what a handler got.
func echo(_ context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil }

const treeSchema = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"properties": {
		"tree": {"$ref": "#/$defs/Node"},
		"tags": {"type": "array", "items": {"type": "string", "minLength": 2}, "maxItems": 3},
		"name": {"type": ["string", "null"], "maxLength": 5},
		"at": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "integer"}], "items": false},
		"labels": {"type": "object", "additionalProperties": {"type": "integer"}},
		"open": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "boolean"}},
		"code": {"type": "string", "pattern": "^[A-Z]{3}$"},
		"kind": {"enum": ["a", "b", 3]}
	},
	"required": ["tree"],
	"$defs": {
		"Node": {
			"type": "object",
			"properties": {
				"label": {"type": "string"},
				"size": {"type": "integer", "minimum": 1, "maximum": 10},
				"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
			},
			"required": ["label"]
		}
	}
}`

func schemaCatalog(t *testing.T, tier catalog.Tier, validate func(context.Context, json.RawMessage) error, calls *atomic.Int32) *catalog.Catalog {
	t.Helper()
	c, err := catalog.New("ns", &catalog.Options{AllowAnonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	catalog.MustAddSchema(c, catalog.SchemaFunc{
		Name: "walk", Tier: tier, InputSchema: json.RawMessage(treeSchema), Validate: validate,
		Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			if calls != nil {
				calls.Add(1)
			}
			return echo(ctx, args)
		},
	})
	return c
}

func TestSchemaCall(t *testing.T) {
	for _, tc := range []struct {
		name, args, want, wantErr string
	}{
		{name: "valid, recursive", args: `{"tree":{"label":"r","children":[{"label":"c","size":2}]}}`,
			want: `{"tree":{"children":[{"label":"c","size":2}],"label":"r"}}`},
		{name: "optional null counts as absent", args: `{"tree":{"label":"r"},"name":null}`, want: `{"tree":{"label":"r"}}`},
		{name: "nullable", args: `{"tree":{"label":"r"},"name":"ab"}`, want: `{"name":"ab","tree":{"label":"r"}}`},
		{name: "tuple, record, open object", args: `{"tree":{"label":"r"},"at":[1.5,2],"labels":{"x":1},"open":{"a":"s","b":true}}`,
			want: `{"at":[1.5,2],"labels":{"x":1},"open":{"a":"s","b":true},"tree":{"label":"r"}}`},
		{name: "types deep in a recursive $ref", args: `{"tree":{"label":"r","children":[{"label":5,"size":1.5}]}}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["tree","children",0,"label"],"message":"Expected string, got number"},{"path":["tree","children",0,"size"],"message":"Expected integer, got 1.5"}]}`},
		{name: "required, unknown with did-you-mean", args: `{"tree":{"lable":"r"}}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["tree","label"],"message":"Required field"},{"path":["tree","lable"],"message":"Unknown field (did you mean \"label\"?)"}]}`},
		{name: "bounds worded like validate tags", args: `{"tree":{"label":"r","size":11},"tags":["a","bb","cc","dd"],"name":"toolong"}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["name"],"message":"Must be at most 5 characters"},{"path":["tags"],"message":"Must have at most 3 items"},{"path":["tags",0],"message":"Must be at least 2 characters"},{"path":["tree","size"],"message":"Must be at most 10"}]}`},
		{name: "type and bound errors together", args: `{"tree":{"label":1,"size":0}}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["tree","label"],"message":"Expected string, got number"},{"path":["tree","size"],"message":"Must be at least 1"}]}`},
		{name: "enum", args: `{"tree":{"label":"r"},"kind":"c"}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["kind"],"message":"Must be one of: a, b, 3"}]}`},
		{name: "tuple too long", args: `{"tree":{"label":"r"},"at":[1,2,3]}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["at"],"message":"Expected at most 2 items, got 3"}]}`},
		{name: "tuple item type", args: `{"tree":{"label":"r"},"at":[1,2.5]}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["at",1],"message":"Expected integer, got 2.5"}]}`},
		{name: "record value type", args: `{"tree":{"label":"r"},"labels":{"x":"1"}}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["labels","x"],"message":"Expected number, got string"}]}`},
		{name: "open object's further members", args: `{"tree":{"label":"r"},"open":{"b":1}}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["open","b"],"message":"Expected boolean, got number"}]}`},
		{name: "pattern, left to the schema validator", args: `{"tree":{"label":"r"},"code":"abc"}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":[],"message":"Does not match the schema: pattern: \"abc\" does not match regular expression \"^[A-Z]{3}$\""}]}`},
		{name: "duplicate member", args: `{"tree":{"label":"r"},"tree":{"label":"s"}}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["tree"],"message":"Duplicate field"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := schemaCatalog(t, catalog.Mutating, nil, nil)
			out, err := c.Call(context.Background(), "walk", json.RawMessage(tc.args))
			if tc.wantErr != "" {
				b, _ := json.Marshal(err)
				if string(b) != tc.wantErr {
					t.Errorf("error\n got %s\nwant %s", b, tc.wantErr)
				}
				return
			}
			if err != nil || string(out) != tc.want {
				t.Errorf("got %s, %v; want %s", out, err, tc.want)
			}
		})
	}
}

// TestSchemaReadOnlyWarns checks that a READ-ONLY schema function ignores
// unknown members with a warning naming the nearest declared member, and
// that its handler never sees them, even where the schema itself forbids
// additional properties.
func TestSchemaReadOnlyWarns(t *testing.T) {
	c, _ := catalog.New("ns", &catalog.Options{AllowAnonymous: true})
	catalog.MustAddSchema(c, catalog.SchemaFunc{Name: "find", Tier: catalog.ReadOnly, Handler: echo,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"additionalProperties":false}`)})
	out, warns, err := c.CallWithWarnings(context.Background(), "find", json.RawMessage(`{"query":"x","qeury":"y"}`))
	if err != nil || string(out) != `{"query":"x"}` {
		t.Fatalf("got %s, %v", out, err)
	}
	if len(warns) != 1 || warns[0].Message != `find ignored unknown field "qeury" (did you mean "query"?)` {
		t.Errorf("warnings = %+v", warns)
	}
	_, err = c.Call(context.Background(), "find", json.RawMessage(`{"_validateOnly":true}`))
	if b, _ := json.Marshal(err); !strings.Contains(string(b), "READ-ONLY functions do not take _validateOnly") {
		t.Errorf("_validateOnly on a read: %s", b)
	}
}

// TestSchemaDryRun checks that _validateOnly runs the checks and the
// Validate hook, never the handler, and that the hook's errors reach the
// model.
func TestSchemaDryRun(t *testing.T) {
	var calls atomic.Int32
	var seen json.RawMessage
	c := schemaCatalog(t, catalog.Creative, func(_ context.Context, args json.RawMessage) error {
		seen = args
		if strings.Contains(string(args), `"taken"`) {
			return catalog.Conflict("a tree labelled taken exists")
		}
		return nil
	}, &calls)
	ctx := context.Background()
	out, err := c.Call(ctx, "walk", json.RawMessage(`{"tree":{"label":"r"},"_validateOnly":true}`))
	if err != nil || string(out) != `{"valid":true}` || calls.Load() != 0 {
		t.Fatalf("dry run: %s, %v, handler calls %d", out, err, calls.Load())
	}
	if string(seen) != `{"tree":{"label":"r"}}` {
		t.Errorf("Validate saw %s", seen)
	}
	_, err = c.Call(ctx, "walk", json.RawMessage(`{"tree":{"label":"taken"},"_validateOnly":true}`))
	if catalog.CodeOf(err) != catalog.CodeConflict {
		t.Errorf("hook error: %v", err)
	}
	_, err = c.Call(ctx, "walk", json.RawMessage(`{"tree":{"label":5},"_validateOnly":true}`))
	if catalog.CodeOf(err) != catalog.CodeValidation || calls.Load() != 0 {
		t.Errorf("invalid dry run: %v, handler calls %d", err, calls.Load())
	}
	if _, err := c.Call(ctx, "walk", json.RawMessage(`{"tree":{"label":"r"}}`)); err != nil || calls.Load() != 1 {
		t.Errorf("real call: %v, handler calls %d", err, calls.Load())
	}
}

func TestSchemaScopesAndErrors(t *testing.T) {
	c, _ := catalog.New("ns", &catalog.Options{Logger: slog.New(slog.DiscardHandler)})
	catalog.MustAddSchema(c, catalog.SchemaFunc{Name: "f", Tier: catalog.ReadOnly, Scopes: []string{"a:read"},
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"bad json`), nil
		}})
	ctx := context.Background()
	if _, err := c.Call(ctx, "f", nil); !errors.Is(err, catalog.ErrUnauthenticated) {
		t.Errorf("anonymous: %v", err)
	}
	ctx = catalog.WithPrincipal(ctx, catalog.Principal{Subject: "u"})
	if _, err := c.Call(ctx, "f", nil); catalog.CodeOf(err) != catalog.CodeInsufficientScope {
		t.Errorf("no scope: %v", err)
	}
	ctx = catalog.WithPrincipal(ctx, catalog.Principal{Subject: "u", Scopes: []string{"a:read"}})
	if _, err := c.Call(ctx, "f", nil); catalog.CodeOf(err) != catalog.CodeInternal {
		t.Errorf("invalid JSON from the handler: %v", err)
	}
}

func TestAddSchemaRejects(t *testing.T) {
	ok := json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)
	for _, tc := range []struct {
		name string
		f    catalog.SchemaFunc
		want string
	}{
		{"no schema", catalog.SchemaFunc{Name: "f", Tier: catalog.ReadOnly, Handler: echo}, "catalog: f: the InputSchema field is required"},
		{"no handler", catalog.SchemaFunc{Name: "f", Tier: catalog.ReadOnly, InputSchema: ok}, "catalog: f: the Handler field is nil"},
		{"no tier", catalog.SchemaFunc{Name: "f", InputSchema: ok, Handler: echo}, "the Tier field is required"},
		{"bad name", catalog.SchemaFunc{Name: "get-file", Tier: catalog.ReadOnly, InputSchema: ok, Handler: echo}, "catalog: function name"},
		{"not JSON", catalog.SchemaFunc{Name: "f", Tier: catalog.ReadOnly, InputSchema: json.RawMessage(`{`), Handler: echo}, "catalog: f: input schema: not valid JSON"},
		{"not an object", catalog.SchemaFunc{Name: "f", Tier: catalog.ReadOnly, InputSchema: json.RawMessage(`{"type":"string"}`), Handler: echo},
			"catalog: f: input schema: the root must describe an object with properties"},
		{"dangling $ref", catalog.SchemaFunc{Name: "f", Tier: catalog.ReadOnly, Handler: echo,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"$ref":"#/$defs/Missing"}}}}}`)},
			"catalog: f: input schema: "},
		{"bad keyword value", catalog.SchemaFunc{Name: "f", Tier: catalog.ReadOnly, Handler: echo,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`)}, "catalog: f: input schema: "},
		{"remote $ref", catalog.SchemaFunc{Name: "f", Tier: catalog.ReadOnly, Handler: echo,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`)}, "cannot resolve remote schemas"},
		{"reserved member on a read", catalog.SchemaFunc{Name: "f", Tier: catalog.ReadOnly, Handler: echo,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"_validateOnly":{"type":"boolean"}}}`)}, "reserved for dry runs"},
		{"bad output schema", catalog.SchemaFunc{Name: "f", Tier: catalog.ReadOnly, Handler: echo, InputSchema: ok,
			OutputSchema: json.RawMessage(`{"$ref":"#/nowhere"}`)}, "catalog: f: output schema: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := catalog.New("ns", nil)
			err := catalog.AddSchema(c, tc.f)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
			if len(c.Functions()) != 0 || c.Version() != 0 {
				t.Error("a refused registration changed the catalog")
			}
		})
	}
}

// TestAddSchemaDanglingRefNamesPath checks that a $ref pointing nowhere
// is reported with the schema path of the member that uses it.
func TestAddSchemaDanglingRefNamesPath(t *testing.T) {
	c, _ := catalog.New("ns", nil)
	err := catalog.AddSchema(c, catalog.SchemaFunc{Name: "f", Tier: catalog.ReadOnly, Handler: echo,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"$ref":"#/$defs/Missing"}}}}}`)})
	if err == nil || !strings.Contains(err.Error(), "#/$defs/Missing") {
		t.Fatalf("error = %v", err)
	}
}

func TestRemoveAndVersion(t *testing.T) {
	c, _ := catalog.New("ns", &catalog.Options{AllowAnonymous: true})
	v0 := c.Version()
	catalog.MustAddSchema(c, catalog.SchemaFunc{Name: "f", Tier: catalog.ReadOnly, Handler: echo, InputSchema: json.RawMessage(`{"type":"object"}`)})
	v1 := c.Version()
	catalog.MustAdd(c, catalog.Func[struct{}, int]{Name: "g", Tier: catalog.ReadOnly, Handler: func(context.Context, struct{}) (int, error) { return 1, nil }})
	v2 := c.Version()
	if !(v0 < v1 && v1 < v2) {
		t.Fatalf("versions %d %d %d", v0, v1, v2)
	}
	if err := catalog.AddSchema(c, catalog.SchemaFunc{Name: "f", Tier: catalog.ReadOnly, Handler: echo, InputSchema: json.RawMessage(`{"type":"object"}`)}); err == nil || c.Version() != v2 {
		t.Errorf("duplicate: %v, version %d", err, c.Version())
	}
	if !c.Remove("f") || c.Remove("f") || c.Version() == v2 {
		t.Errorf("Remove: version %d", c.Version())
	}
	if _, err := c.Call(context.Background(), "f", nil); !errors.Is(err, catalog.ErrUnknownFunction) {
		t.Errorf("call after Remove: %v", err)
	}
	v3 := c.Version()
	catalog.MustAddSchema(c, catalog.SchemaFunc{Name: "f", Tier: catalog.Creative, Handler: echo, InputSchema: json.RawMessage(`{"type":"object"}`)})
	if c.Version() == v3 || len(c.Functions()) != 2 {
		t.Errorf("re-added: version %d, %d functions", c.Version(), len(c.Functions()))
	}
	for _, f := range c.Functions() {
		if (f.Name == "f") != (f.In == nil && f.InputSchema != nil) {
			t.Errorf("%s: In %v, InputSchema %s", f.Name, f.In, f.InputSchema)
		}
	}
}

// TestAbsentOptionalStructNotValidated checks that an optional struct
// member that is absent is not validated as its zero value (validator/v10
// would report its required fields), and that one given is.
func TestAbsentOptionalStructNotValidated(t *testing.T) {
	type Output struct {
		Title string `json:"title" validate:"required"`
	}
	type Args struct {
		Name   string `json:"name"`
		Output Output `json:"output,omitzero"`
	}
	c, _ := catalog.New("ns", &catalog.Options{AllowAnonymous: true})
	catalog.MustAdd(c, catalog.Func[Args, string]{Name: "f", Tier: catalog.Creative,
		Handler: func(_ context.Context, a Args) (string, error) { return a.Output.Title, nil }})
	ctx := context.Background()
	if out, err := c.Call(ctx, "f", json.RawMessage(`{"name":"x"}`)); err != nil || string(out) != `""` {
		t.Errorf("absent optional struct: %s, %v", out, err)
	}
	_, err := c.Call(ctx, "f", json.RawMessage(`{"name":"x","output":{}}`))
	if b, _ := json.Marshal(err); string(b) != `{"error":"Validation failed","issues":[{"path":["output","title"],"message":"Required field"}]}` {
		t.Errorf("empty struct given: %s", b)
	}
	_, err = c.Call(ctx, "f", json.RawMessage(`{"name":5,"output":{"title":""}}`))
	if b, _ := json.Marshal(err); string(b) != `{"error":"Validation failed","issues":[{"path":["name"],"message":"Expected string, got number"},{"path":["output","title"],"message":"Must not be empty"}]}` {
		t.Errorf("type error with a tag issue: %s", b)
	}
}

// TestSchemaHostile checks that recursive schemas register without
// looping, that one referring to itself in place is refused naming its
// path, and that deeply nested arguments against a recursive schema are
// checked at every depth without exhausting anything.
func TestSchemaHostile(t *testing.T) {
	c, _ := catalog.New("ns", &catalog.Options{AllowAnonymous: true})
	for name, schema := range map[string]string{
		"rootLoop": `{"type":"object","properties":{"next":{"$ref":"#"}}}`,
		"aliases":  `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"$ref":"#/$defs/B"},"B":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}}}}`,
	} {
		if err := catalog.AddSchema(c, catalog.SchemaFunc{Name: name, Tier: catalog.Mutating, Handler: echo, InputSchema: json.RawMessage(schema)}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := catalog.AddSchema(c, catalog.SchemaFunc{Name: "rootOnly", Tier: catalog.Mutating, Handler: echo, InputSchema: json.RawMessage(`{"$ref":"#"}`)}); err == nil {
		t.Error("a schema that is only a reference to itself was accepted")
	}
	selfRef := `{"type":"object","properties":{"a":{"$ref":"#/properties/a"}}}`
	err := catalog.AddSchema(c, catalog.SchemaFunc{Name: "selfRef", Tier: catalog.Mutating, Handler: echo, InputSchema: json.RawMessage(selfRef)})
	if want := "catalog: selfRef: input schema: #/properties/a: the schema refers back to itself"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a member that is only a reference to itself: %v, want %q…", err, want)
	}
	const depth = 5000
	deep := strings.Repeat(`{"next":`, depth) + `{"nxt":1}` + strings.Repeat(`}`, depth)
	_, err = c.Call(context.Background(), "rootLoop", json.RawMessage(deep))
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) || len(ve.Issues) != 1 || len(ve.Issues[0].Path) != depth+1 || ve.Issues[0].Message != `Unknown field (did you mean "next"?)` {
		t.Errorf("deep unknown member: %v", err)
	}
	ok := strings.Repeat(`{"next":`, depth) + `{}` + strings.Repeat(`}`, depth)
	if out, err := c.Call(context.Background(), "rootLoop", json.RawMessage(ok)); err != nil || len(out) != len(ok) {
		t.Errorf("deep valid arguments: %d bytes, %v", len(out), err)
	}
}

// TestSchemaRequiredNullable checks that a required member whose schema
// allows null accepts null, and still must be present.
func TestSchemaRequiredNullable(t *testing.T) {
	c, _ := catalog.New("ns", &catalog.Options{AllowAnonymous: true})
	catalog.MustAddSchema(c, catalog.SchemaFunc{Name: "f", Tier: catalog.Mutating, Handler: echo,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"due":{"type":["string","null"]}},"required":["due"]}`)})
	if out, err := c.Call(context.Background(), "f", json.RawMessage(`{"due":null}`)); err != nil || string(out) != `{}` {
		t.Errorf("null for a required nullable member: %s, %v", out, err)
	}
	_, err := c.Call(context.Background(), "f", json.RawMessage(`{}`))
	if b, _ := json.Marshal(err); string(b) != `{"error":"Validation failed","issues":[{"path":["due"],"message":"Required field"}]}` {
		t.Errorf("absent required nullable member: %s", b)
	}
}

// TestRemoveWhileCalling registers, calls and removes schema functions
// from several goroutines at once (run with -race): a call either runs
// or reports the function unknown, and Version only grows.
func TestRemoveWhileCalling(t *testing.T) {
	c, _ := catalog.New("ns", &catalog.Options{AllowAnonymous: true})
	f := catalog.SchemaFunc{Name: "f", Tier: catalog.ReadOnly, Handler: echo, InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"}}}`)}
	done := make(chan struct{})
	errs := make(chan error, 4)
	go func() {
		defer close(done)
		last := c.Version()
		for range 200 {
			_ = catalog.AddSchema(c, f)
			c.Remove("f")
			if v := c.Version(); v < last {
				errs <- errors.New("Version went down")
				return
			} else {
				last = v
			}
		}
	}()
	for i := 0; ; i++ {
		select {
		case <-done:
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			return
		default:
		}
		out, err := c.Call(context.Background(), "f", json.RawMessage(`{"a":1}`))
		if err != nil && !errors.Is(err, catalog.ErrUnknownFunction) || err == nil && string(out) != `{"a":1}` {
			t.Fatalf("call %d: %s, %v", i, out, err)
		}
		_ = c.Functions()
	}
}
