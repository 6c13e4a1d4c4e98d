package catalog_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
)

func TestNewNamespace(t *testing.T) {
	for _, tc := range []struct {
		ns, wantErr string
	}{
		{"brakinglab", ""},
		{"$api_2", ""},
		{"", "must not be empty"},
		{"braking-lab", "not a valid JavaScript identifier"},
		{"2fast", "not a valid JavaScript identifier"},
		{"delete", "reserved word"},
		// The sandbox binds only ASCII identifiers; the catalog agrees, so a
		// catalog that registers is one every execution can bind.
		{"garagé", "not a valid JavaScript identifier"},
	} {
		_, err := catalog.New(tc.ns, nil)
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("New(%q): %v", tc.ns, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("New(%q) error = %v, want it to mention %q", tc.ns, err, tc.wantErr)
		}
	}
}

type ok struct {
	A string `json:"a"`
}

func handler[In, Out any](ctx context.Context, in In) (Out, error) {
	var out Out
	return out, nil
}

func TestAddRejects(t *testing.T) {
	//lint:ignore U1000 the test needs a struct without exported fields
	type hidden struct{ a, b int }
	type withChan struct {
		C chan int `json:"c"`
	}
	type withFunc struct {
		F func() `json:"f"`
	}
	type withComplex struct {
		Z []complex128 `json:"z"`
	}
	type withHidden struct {
		H hidden `json:"h"`
	}
	type withIface struct {
		E error `json:"e"`
	}
	type withStructKey struct {
		M map[ok]int `json:"m"`
	}
	type withString struct {
		N int `json:"n,string"`
	}
	type badTag struct {
		N int `json:"n" validate:"mni=1"`
	}
	type badTagInMap struct {
		ByKey map[string]*[]badTag `json:"byKey"`
	}
	type badTagEmbedded struct {
		badTag
	}
	type badNestedTag struct {
		Items []struct {
			V string `json:"v" validate:"oneoff=a b"`
		} `json:"items"`
	}
	type oneofFloat struct {
		F float64 `json:"f" validate:"oneof=1 2"`
	}
	type diveString struct {
		S string `json:"s" validate:"dive,min=1"`
	}
	type badParam struct {
		N int `json:"n" validate:"min=abc"`
	}
	type unknownSibling struct {
		A string `json:"a" validate:"required_without=Bee"`
		B string `json:"b,omitempty"`
	}
	type keysOnSlice struct {
		L []string `json:"l" validate:"dive,keys,min=1,endkeys"`
	}
	type emptyRule struct {
		S string `json:"s" validate:"min=1,,max=3"`
	}
	type keyValueDoc struct {
		N int `json:"n" jsonschema:"description=How many,minimum=1"`
	}
	type reserved struct {
		V bool `json:"_validateOnly"`
	}
	type recursive struct {
		Name     string       `json:"name"`
		Children []*recursive `json:"children,omitempty"`
	}
	for _, tc := range []struct {
		name    string
		add     func(c *catalog.Catalog) error
		wantErr string
	}{
		{"invalid name", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[ok, ok]{Name: "get-x", Handler: handler[ok, ok]})
		}, "not a valid JavaScript identifier"},
		{"reserved name", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[ok, ok]{Name: "delete", Handler: handler[ok, ok]})
		}, "reserved word"},
		{"duplicate", func(c *catalog.Catalog) error {
			_ = catalog.Add(c, catalog.Func[ok, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[ok, ok]})
			return catalog.Add(c, catalog.Func[ok, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[ok, ok]})
		}, "brakinglab.getX is already registered"},
		{"nil handler", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[ok, ok]{Name: "getX"})
		}, "Handler field is nil"},
		{"missing tier", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[ok, ok]{Name: "getX", Handler: handler[ok, ok]})
		}, "getX: the Tier field is required"},
		{"unknown tier", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[ok, ok]{Name: "getX", Tier: 7, Handler: handler[ok, ok]})
		}, "unknown tier 7"},
		{"bad scope", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[ok, ok]{Name: "getX", Tier: catalog.ReadOnly, Scopes: []string{"a b"}, Handler: handler[ok, ok]})
		}, `invalid scope "a b"`},
		{"non-struct args", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[string, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[string, ok]})
		}, "argument type string must be a struct"},
		{"chan", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[withChan, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[withChan, ok]})
		}, "chan int values cannot cross JSON"},
		{"func in result", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[ok, withFunc]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[ok, withFunc]})
		}, "result type: catalog_test.withFunc.F: func() values cannot cross JSON"},
		{"complex", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[withComplex, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[withComplex, ok]})
		}, "complex128 values cannot cross JSON"},
		{"unexported-only struct", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[withHidden, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[withHidden, ok]})
		}, "has no exported fields"},
		{"non-empty interface", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[withIface, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[withIface, ok]})
		}, "interface type error cannot cross JSON"},
		{"struct map key", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[withStructKey, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[withStructKey, ok]})
		}, "map key type catalog_test.ok cannot cross JSON"},
		{"string option", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[withString, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[withString, ok]})
		}, `",string" option is not supported`},
		{"misspelled validate tag", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[badTag, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[badTag, ok]})
		}, `field N: validate tag "mni=1": unknown rule "mni"`},
		{"misspelled nested validate tag", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[badNestedTag, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[badNestedTag, ok]})
		}, `field V: validate tag "oneoff=a b": unknown rule "oneoff"`},
		{"misspelled validate tag in a map of slices", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[badTagInMap, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[badTagInMap, ok]})
		}, `unknown rule "mni"`},
		{"misspelled validate tag in an embedded struct", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[badTagEmbedded, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[badTagEmbedded, ok]})
		}, `unknown rule "mni"`},
		{"rule on a type it cannot read", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[oneofFloat, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[oneofFloat, ok]})
		}, `field F: validate tag "oneof=1 2": rule oneof does not apply to float64`},
		{"dive on a string", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[diveString, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[diveString, ok]})
		}, `field S: validate tag "dive,min=1": dive needs a slice, array or map, not string`},
		{"malformed parameter", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[badParam, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[badParam, ok]})
		}, `field N: validate tag "min=abc": rule min: strconv.ParseInt: parsing "abc": invalid syntax`},
		{"cross-member rule naming no member", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[unknownSibling, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[unknownSibling, ok]})
		}, `field A: validate tag "required_without=Bee": rule required_without: no member Bee`},
		{"keys outside a map", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[keysOnSlice, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[keysOnSlice, ok]})
		}, `keys needs a map, not []string`},
		{"empty rule", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[emptyRule, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[emptyRule, ok]})
		}, `field S: validate tag "min=1,,max=3": empty rule`},
		{"jsonschema key=value", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[keyValueDoc, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[keyValueDoc, ok]})
		}, `keyValueDoc.N: jsonschema tag "description=How many,minimum=1": the key=value form is not supported`},
		{"jsonschema key=value in result", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[ok, keyValueDoc]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[ok, keyValueDoc]})
		}, "the key=value form is not supported"},
		{"reserved member", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[reserved, ok]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[reserved, ok]})
		}, "_validateOnly is reserved"},
		{"recursive types are fine", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[recursive, recursive]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[recursive, recursive]})
		}, ""},
		{"no arguments is fine", func(c *catalog.Catalog) error {
			return catalog.Add(c, catalog.Func[struct{}, []string]{Name: "getX", Tier: catalog.ReadOnly, Handler: handler[struct{}, []string]})
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := catalog.New("brakinglab", nil)
			if err != nil {
				t.Fatal(err)
			}
			err = tc.add(c)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Add: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Add error = %v, want it to mention %q", err, tc.wantErr)
			}
		})
	}
}

func TestMustAddPanics(t *testing.T) {
	c, _ := catalog.New("brakinglab", nil)
	defer func() {
		if recover() == nil {
			t.Error("MustAdd did not panic on a nil handler")
		}
	}()
	catalog.MustAdd(c, catalog.Func[ok, ok]{Name: "getX"})
}

func TestFunctions(t *testing.T) {
	c, _ := newFixture(nil)
	if c.Namespace() != "brakinglab" {
		t.Errorf("Namespace() = %q", c.Namespace())
	}
	fs := c.Functions()
	var names []string
	for _, f := range fs {
		names = append(names, f.Name+":"+f.Tier.String())
	}
	if got := strings.Join(names, ","); got != "getSessions:READ-ONLY,saveReport:MUTATING,status:READ-ONLY" {
		t.Errorf("Functions() = %s", got)
	}
	save := fs[1]
	if save.In != reflect.TypeFor[SaveReportArgs]() || save.Out != reflect.TypeFor[Report]() {
		t.Errorf("saveReport types = %v, %v", save.In, save.Out)
	}
	if save.Description != "Saves a coaching report." || len(save.Scopes) != 1 || save.Scopes[0] != "reports:write" {
		t.Errorf("saveReport info = %+v", save)
	}
	save.Scopes[0] = "changed"
	if c.Functions()[1].Scopes[0] != "reports:write" {
		t.Error("Functions() exposes the catalog's own scope slice")
	}
}

func TestTierString(t *testing.T) {
	for tier, want := range map[catalog.Tier]string{
		catalog.ReadOnly: "READ-ONLY", catalog.Mutating: "MUTATING", catalog.Creative: "CREATIVE", catalog.Tier(9): "Tier(9)",
	} {
		if got := tier.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(tier), got, want)
		}
	}
}

func TestPrincipal(t *testing.T) {
	if _, ok := catalog.PrincipalFrom(context.Background()); ok {
		t.Error("empty context has a principal")
	}
	p := catalog.Principal{Subject: "u", ClientID: "c", Scopes: []string{"a"}}
	got, ok := catalog.PrincipalFrom(catalog.WithPrincipal(context.Background(), p))
	if !ok || got.Subject != "u" || got.ClientID != "c" || !got.HasScope("a") || got.HasScope("b") {
		t.Errorf("PrincipalFrom = %+v, %v", got, ok)
	}
}
