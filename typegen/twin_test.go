package typegen_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/jsontype"
	"github.com/brakinglab/codemode-go/internal/testdata/ghcatalog"
	"github.com/brakinglab/codemode-go/typegen"
)

// schemaTwin registers, for every function of c, a JSON-Schema function
// with the same name, tier, scopes and approval, whose schemas are
// typegen.InputSchema and OutputSchema of the typed one, and whose handler
// calls the typed one.
func schemaTwin(t testing.TB, c *catalog.Catalog) *catalog.Catalog {
	t.Helper()
	twin, err := catalog.New(c.Namespace(), &catalog.Options{AllowAnonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range c.Functions() {
		in, err := typegen.InputSchema(f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := typegen.OutputSchema(f)
		if err != nil {
			t.Fatal(err)
		}
		name := f.Name
		err = catalog.AddSchema(twin, catalog.SchemaFunc{
			Name: f.Name, Description: f.Description, Tier: f.Tier, Scopes: f.Scopes, Approval: f.Approval,
			InputSchema: in, OutputSchema: out,
			Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return c.Call(ctx, name, args)
			},
		})
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
	}
	return twin
}

// TestSchemaTwinDeclarations is the proof that Go functions and JSON
// Schema functions share one type model and one renderer: the generated
// GitHub catalogue (300 operations) and its JSON-Schema twin give
// byte-identical declarations, in full and compact form.
func TestSchemaTwinDeclarations(t *testing.T) {
	c, err := ghcatalog.New()
	if err != nil {
		t.Fatal(err)
	}
	twin := schemaTwin(t, c)
	for _, opts := range []*typegen.Options{nil, {Compact: true}} {
		want, err := typegen.Generate(c, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := typegen.Generate(twin, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("the schema twin's declarations differ (compact %v):\n%s", opts != nil, firstDiff(want, got))
		}
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n typed: %s\n twin:  %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(al), len(bl))
}

// TestSchemaTwinVerdicts calls every function of the GitHub catalogue and
// its schema twin with the same arguments, made from the Go argument
// types: none, a valid set, an unknown member, a wrong type for each
// member, a value outside each enum and a string beyond each max. Both
// must give the same verdict: the same result or the same error JSON,
// and the same warnings.
func TestSchemaTwinVerdicts(t *testing.T) {
	c, err := ghcatalog.New()
	if err != nil {
		t.Fatal(err)
	}
	twin := schemaTwin(t, c)
	var scopes []string
	for _, f := range c.Functions() {
		scopes = append(scopes, f.Scopes...)
	}
	ctx := catalog.WithPrincipal(context.Background(), catalog.Principal{Subject: "u", Scopes: scopes})
	calls, invalid := 0, 0
	for _, f := range c.Functions() {
		for _, args := range argumentSets(f.In) {
			want, wantWarn, wantErr := c.CallWithWarnings(ctx, f.Name, args)
			got, gotWarn, gotErr := twin.CallWithWarnings(ctx, f.Name, args)
			we, _ := json.Marshal(wantErr)
			ge, _ := json.Marshal(gotErr)
			ww, _ := json.Marshal(wantWarn)
			gw, _ := json.Marshal(gotWarn)
			if string(we) != string(ge) || string(want) != string(got) || string(ww) != string(gw) {
				t.Errorf("%s(%s):\n typed: %s %s %s\n twin:  %s %s %s", f.Name, args, want, we, ww, got, ge, gw)
			}
			calls++
			if wantErr != nil {
				invalid++
			}
		}
	}
	t.Logf("%d calls, %d refused", calls, invalid)
	if calls < 1000 || invalid < calls/3 || invalid == calls {
		t.Errorf("%d calls, %d refused: the argument sets do not exercise both verdicts", calls, invalid)
	}
}

// argumentSets builds argument objects for struct type t.
func argumentSets(t reflect.Type) []json.RawMessage {
	valid := sampleObject(t)
	sets := []map[string]any{{}, valid, with(valid, "zzUnknown", 1)}
	for _, f := range jsontype.Fields(t) {
		wrong := any(true)
		if ft := deref(f.Type); ft.Kind() == reflect.Bool || jsontype.ShapeOf(ft, true) == jsontype.Any || jsontype.ShapeOf(ft, true) == jsontype.Custom {
			wrong = []any{"x"}
			if jsontype.ShapeOf(ft, true) != jsontype.Bool {
				continue // anything goes
			}
		}
		sets = append(sets, with(valid, f.Name, wrong))
		rules, _ := jsontype.SplitValidate(f.Validate)
		for _, r := range rules {
			switch r.Tag {
			case "oneof":
				sets = append(sets, with(valid, f.Name, "not-an-option"))
			case "max":
				if n, err := strconv.Atoi(r.Param); err == nil && n < 1000 && deref(f.Type).Kind() == reflect.String {
					sets = append(sets, with(valid, f.Name, strings.Repeat("x", n+1)))
				}
			}
		}
	}
	out := make([]json.RawMessage, len(sets))
	for i, s := range sets {
		out[i], _ = json.Marshal(s)
	}
	return out
}

func with(m map[string]any, k string, v any) map[string]any {
	c := maps.Clone(m)
	c[k] = v
	return c
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// sampleObject fills the required members of struct t with valid values.
func sampleObject(t reflect.Type) map[string]any {
	m := map[string]any{}
	for _, f := range jsontype.Fields(t) {
		if f.Required {
			m[f.Name] = sample(f.Type, f.Validate, 0)
		}
	}
	return m
}

func sample(t reflect.Type, tag string, depth int) any {
	t = deref(t)
	rules, elemTag := jsontype.SplitValidate(tag)
	for _, r := range rules {
		if r.Tag == "oneof" {
			v := jsontype.OneOf(r.Param)[0]
			if t.Kind() == reflect.String {
				return v
			}
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	switch jsontype.ShapeOf(t, true) {
	case jsontype.Bool:
		return true
	case jsontype.Int, jsontype.Uint:
		return 1
	case jsontype.Float:
		return 1.5
	case jsontype.String, jsontype.Text:
		return "x"
	case jsontype.Time:
		return "2026-01-01T00:00:00Z"
	case jsontype.Slice, jsontype.Array:
		if depth > 3 {
			return []any{}
		}
		return []any{sample(t.Elem(), elemTag, depth+1)}
	case jsontype.Map:
		return map[string]any{}
	case jsontype.Struct:
		if depth > 3 {
			return map[string]any{}
		}
		m := map[string]any{}
		for _, f := range jsontype.Fields(t) {
			if f.Required {
				m[f.Name] = sample(f.Type, f.Validate, depth+1)
			}
		}
		return m
	}
	return "x"
}
