package typegen_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/discover"
	"github.com/brakinglab/codemode-go/internal/jsontype"
	"github.com/brakinglab/codemode-go/typegen"
)

// hostileFunc registers schema as both the input and the output of a
// function f, or returns the registration error.
func hostileFunc(schema []byte) (*catalog.Catalog, error) {
	c, _ := catalog.New("ns", &catalog.Options{AllowAnonymous: true})
	err := catalog.AddSchema(c, catalog.SchemaFunc{Name: "f", Tier: catalog.Creative, InputSchema: schema, OutputSchema: schema,
		Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil }})
	return c, err
}

// TestRecursiveDeclarations checks what the recursive schemas
// declare: a tree is a named recursive interface, an array of itself is
// unknown where it recurs, with a note.
func TestRecursiveDeclarations(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"object","properties":{"child":{"$ref":"#"}}}`,
			"const f: WriteOpt<{ child?: Root }, Root>;\ninterface Root { child?: Root }\n"},
		{`{"type":"object","properties":{"l":{"$ref":"#/$defs/L"}},"$defs":{"L":{"type":"array","items":{"$ref":"#/$defs/L"}}}}`,
			"l?: unknown[]; // Recursive: the same type as #/$defs/L again, not written out."},
		{`{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"$defs":{"Node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}}}`,
			"interface Node { kids?: Node[] }"},
	} {
		c, err := hostileFunc([]byte(tc.schema))
		if err != nil {
			t.Fatalf("%s: %v", tc.schema, err)
		}
		d, err := typegen.Generate(c, nil)
		if err != nil || !strings.Contains(d, tc.want) {
			t.Errorf("%s:\n%s\nwant it to contain %q (%v)", tc.schema, d, tc.want, err)
		}
	}
}

// FuzzSchemaWalkers feeds arbitrary schemas, starting from the hostile
// corpus (internal/testdata/hostileschemas), to every walker of a
// registered schema: registration, the declarations, the input schema,
// discovery's index and argument shape, and calls (the node check, the
// rules and the JSON Schema validator). None may panic, loop or
// overflow its stack; the declarations stay bounded.
func FuzzSchemaWalkers(f *testing.F) {
	files, _ := filepath.Glob("../internal/testdata/hostileschemas/*.json")
	if len(files) == 0 {
		f.Fatal("no hostile schemas")
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, []byte(`{}`))
	}
	f.Add([]byte(`{"type":"object","properties":{"child":{"$ref":"#"}}}`), []byte(`{"child":{"child":{"child":null}}}`))
	f.Add([]byte(`{"type":"object","properties":{"l":{"$ref":"#/$defs/L"}},"$defs":{"L":{"type":"array","items":{"$ref":"#/$defs/L"}}}}`), []byte(`{"l":[[[[]],[]]]}`))
	f.Fuzz(func(t *testing.T, schema, args []byte) {
		c, err := hostileFunc(schema)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "catalog: f: ") {
				t.Fatalf("the error does not name the function: %v", err)
			}
			return
		}
		d, err := typegen.Generate(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(d) > 2*jsontype.MaxSchemaText {
			t.Fatalf("%d bytes of declarations for a %d-byte schema", len(d), len(schema))
		}
		fi := c.Functions()[0]
		if _, err := typegen.InputSchema(fi); err != nil {
			t.Fatal(err)
		}
		a, r := fi.Nodes()
		x := discover.New([]discover.Func{{ID: "ns.f", Name: "f", Args: a, Result: r}})
		_ = x.Rank("child", 5, nil)
		_ = discover.Shape(a)
		_, _ = c.Call(context.Background(), "f", args)
	})
}
