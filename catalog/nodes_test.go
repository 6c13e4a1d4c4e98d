package catalog_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// TestFuncInfoNodes checks the explicit accessor to the type model: a
// function of either kind carries the nodes its calls are checked
// against, and a FuncInfo made by hand carries none.
func TestFuncInfoNodes(t *testing.T) {
	c, err := catalog.New("ns", nil)
	if err != nil {
		t.Fatal(err)
	}
	type args struct {
		Name string `json:"name"`
	}
	catalog.MustAdd(c, catalog.Func[args, []string]{Name: "typed", Tier: catalog.ReadOnly,
		Handler: func(context.Context, args) ([]string, error) { return nil, nil }})
	catalog.MustAddSchema(c, catalog.SchemaFunc{Name: "schema", Tier: catalog.Mutating,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		Handler:     func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }})
	for _, f := range c.Functions() {
		in, out := f.Nodes()
		if in == nil || out == nil {
			t.Fatalf("%s: nodes %v, %v", f.Name, in, out)
		}
		if in.Shape != jsontype.Struct || in.Fields[0].Name != "name" {
			t.Errorf("%s: argument node %+v", f.Name, in)
		}
		if f.Name == "typed" && out.Shape != jsontype.Slice || f.Name == "schema" && out.Shape != jsontype.Any {
			t.Errorf("%s: result shape %v", f.Name, out.Shape)
		}
	}
	if in, out := (catalog.FuncInfo{Name: "byHand"}).Nodes(); in != nil || out != nil {
		t.Error("a FuncInfo made by hand has nodes")
	}
}
