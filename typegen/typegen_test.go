package typegen_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/typegen"
)

func TestGenerateErrors(t *testing.T) {
	if _, err := typegen.Generate(nil, nil); !errors.Is(err, typegen.ErrNilCatalog) {
		t.Errorf("Generate(nil) error = %v", err)
	}
	_, err := typegen.GenerateFuncs("ns", []catalog.FuncInfo{{Name: "f", In: reflect.TypeFor[string](), Out: reflect.TypeFor[string]()}}, nil)
	if err == nil || !strings.Contains(err.Error(), "not a struct") {
		t.Errorf("GenerateFuncs with a string argument type: error = %v", err)
	}
}

// TestOptionalityMatchesDecoding calls every fixture function with {} and
// checks that the fields the catalog reports as "Required field" are
// exactly the non-optional members of the generated Args interface.
func TestOptionalityMatchesDecoding(t *testing.T) {
	c := fixture()
	decls, err := typegen.Generate(c, &typegen.Options{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := catalog.WithPrincipal(context.Background(), catalog.Principal{Subject: "u", Scopes: []string{"sessions:read", "reports:write", "plans:write"}})
	for _, f := range c.Functions() {
		members, ok := argMembers(decls, f.Name)
		if !ok {
			t.Fatalf("%s is not declared:\n%s", f.Name, decls)
		}
		var declared []string
		for name, required := range members {
			if required {
				declared = append(declared, name)
			}
		}
		var required []string
		_, err := c.Call(ctx, f.Name, json.RawMessage(`{}`))
		var ve *catalog.ValidationError
		if errors.As(err, &ve) {
			for _, is := range ve.Issues {
				if is.Message == "Required field" && len(is.Path) == 1 {
					required = append(required, is.Path[0].(string))
				}
			}
		}
		slices.Sort(declared)
		slices.Sort(required)
		if !slices.Equal(declared, required) {
			t.Errorf("%s: declared required %v, decoding requires %v", f.Name, declared, required)
		}
	}
}

type Note struct {
	Text string `json:"text" jsonschema:"Free text; may contain */ safely"`
}

type Holder struct {
	A     Note              `json:"a"`
	B     map[string][]Note `json:"b"`
	Bytes []byte            `json:"bytes"`
	Odd   int               `json:"odd-name"`
	Email string            `json:"email" validate:"email"`
	Gt    float64           `json:"gt" validate:"gt=0,lt=1"`
}

func TestTypeMapping(t *testing.T) {
	type Note struct { // same name as the package-level Note: must not collide
		Body string `json:"body"`
	}
	type Args struct {
		Local  Note   `json:"local"`
		Global Holder `json:"global"`
	}
	c, _ := catalog.New("ns", nil)
	catalog.MustAdd(c, catalog.Func[Args, map[string]Note]{
		Name:    "f",
		Tier:    catalog.ReadOnly,
		Handler: func(ctx context.Context, in Args) (map[string]Note, error) { return nil, nil },
	})
	got, err := typegen.Generate(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"function f(args: { local: Note; global: Holder }): Promise<Record<string, Note>>;\n",
		"a: Note2; b: Record<string, Note2[]>;\n",
		"bytes: string; // Base64-encoded bytes.\n",
		`"odd-name": int;` + "\n",
		"email: string; // @format email\n",
		"gt: number; // @exclusiveMinimum 0 @exclusiveMaximum 1\n",
		"text: string; // Free text; may contain */ safely\n",
		"interface Note { body: string }\n",
		"interface Note2 {\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
