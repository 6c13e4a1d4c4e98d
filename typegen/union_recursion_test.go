package typegen_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/typegen"
)

// A union that reaches itself with no named object between (a tree of
// strings: A = string | A[]) is declared, unknown where it recurs,
// instead of overflowing the stack.
func TestRecursiveUnion(t *testing.T) {
	c, err := catalog.New("t", nil)
	if err != nil {
		t.Fatal(err)
	}
	catalog.MustAddSchema(c, catalog.SchemaFunc{Name: "tree", Tier: catalog.ReadOnly,
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"t":{"$ref":"#/$defs/A"}},"$defs":{"A":{"oneOf":[{"type":"string"},{"type":"array","items":{"$ref":"#/$defs/A"}}]}}}`),
		OutputSchema: json.RawMessage(`{"$ref":"#/$defs/A","$defs":{"A":{"anyOf":[{"type":"integer"},{"type":"array","items":{"$ref":"#/$defs/A"}}]}}}`),
		Handler:      func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }})
	d, err := typegen.Generate(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d, "t?: string | unknown[]") || !strings.Contains(d, "Promise<int | unknown[]>") {
		t.Fatalf("declarations:\n%s", d)
	}
}
