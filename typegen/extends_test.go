package typegen_test

import (
	"context"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/typegen"
)

// Types for TestExtends. Stamp is declared anyway (a result), so a struct
// embedding it whole extends it; one shadowing a member of it, embedding
// it by pointer or naming it lists the members instead, and one embedding
// a struct declared nowhere else repeats its members.
type (
	Stamp struct {
		By   string `json:"by"`
		Note string `json:"note,omitempty"`
	}
	StampWhole struct {
		Stamp
		Title string `json:"title"`
	}
	StampShadowed struct {
		Stamp
		By int `json:"by"`
	}
	StampByPointer struct {
		*Stamp
		Title string `json:"title"`
	}
	StampNamed struct {
		Stamp `json:"stamp"`
	}
	StampExtra struct {
		Extra string `json:"extra"`
	}
	StampNotDeclared struct {
		StampExtra
		Title string `json:"title"`
	}
)

// result registers a READ-ONLY function without arguments returning Out.
func result[Out any](c *catalog.Catalog, name string) {
	catalog.MustAdd(c, catalog.Func[struct{}, Out]{Name: name, Tier: catalog.ReadOnly,
		Handler: func(context.Context, struct{}) (Out, error) { var out Out; return out, nil }})
}

// TestExtends checks when a declaration extends an embedded struct, now
// read from the type model's Embeds rather than from the Go types.
func TestExtends(t *testing.T) {
	c, err := catalog.New("ns", nil)
	if err != nil {
		t.Fatal(err)
	}
	result[Stamp](c, "stamp")
	result[[]StampWhole](c, "whole")
	result[[]StampShadowed](c, "shadowed")
	result[[]StampByPointer](c, "byPointer")
	result[[]StampNamed](c, "named")
	result[[]StampNotDeclared](c, "notDeclared")
	decls, err := typegen.Generate(c, &typegen.Options{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"interface StampWhole extends Stamp { title: string }",
		"interface StampShadowed { note?: string; by: int }",
		"interface StampByPointer { by: string; note?: string; title: string }",
		"interface StampNamed { stamp: Stamp }",
		"interface StampNotDeclared { extra: string; title: string }",
	} {
		if !strings.Contains(decls, want) {
			t.Errorf("missing %q in\n%s", want, decls)
		}
	}
}
