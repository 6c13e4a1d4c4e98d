package catalog_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
)

// Types for TestIssuePaths: members promoted through embedded structs
// (two levels, one by pointer), a rule naming a sibling inside an
// embedded struct, and paths through slices, arrays and maps.
type (
	PathInner struct {
		Code string `json:"code,omitempty" validate:"required_without=Alt"`
		Alt  string `json:"alt,omitempty"`
	}
	PathMiddle struct {
		PathInner
		Level int `json:"level" validate:"max=3"`
	}
	PathItem struct {
		Name string `json:"name" validate:"min=2"`
	}
	PathArgs struct {
		*PathMiddle
		Items  []PathItem            `json:"items" validate:"dive"`
		Fixed  [2]PathItem           `json:"fixed" validate:"dive"`
		ByKey  map[string]PathItem   `json:"byKey" validate:"dive"`
		Nested map[string][]PathItem `json:"nested" validate:"dive,dive"`
	}
)

// TestIssuePaths checks the paths and sibling names of tag issues, read
// from the type model: embedded structs are flattened, indices are
// numbers and map keys strings.
func TestIssuePaths(t *testing.T) {
	c, err := catalog.New("ns", &catalog.Options{AllowAnonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	catalog.MustAdd(c, catalog.Func[PathArgs, bool]{Name: "f", Tier: catalog.Mutating,
		Handler: func(context.Context, PathArgs) (bool, error) { return true, nil }})
	args := `{"level":9,"items":[{"name":"ok"},{"name":"x"}],"fixed":[{"name":"ok"},{"name":"y"}],` +
		`"byKey":{"k1":{"name":"z"}},"nested":{"k2":[{"name":"ok"},{"name":"w"}]}}`
	_, err = c.Call(context.Background(), "f", json.RawMessage(args))
	got, _ := json.Marshal(err)
	want := `{"error":"Validation failed","issues":[` +
		`{"path":["code"],"message":"Required unless alt is given"},` +
		`{"path":["level"],"message":"Must be at most 3"},` +
		`{"path":["items",1,"name"],"message":"Must be at least 2 characters"},` +
		`{"path":["fixed",1,"name"],"message":"Must be at least 2 characters"},` +
		`{"path":["byKey","k1","name"],"message":"Must be at least 2 characters"},` +
		`{"path":["nested","k2",1,"name"],"message":"Must be at least 2 characters"}]}`
	if string(got) != want {
		t.Errorf("issues\n got %s\nwant %s", got, want)
	}
}

// TestIssuePathsUnnamedArgs checks paths when the argument type is a
// struct type without a name (validator/v10's namespaces lost their first
// member there: ["n"] was [], ["items",0,"v"] was [0,"v"]).
func TestIssuePathsUnnamedArgs(t *testing.T) {
	type args = struct {
		N     int        `json:"n" validate:"min=1"`
		Items []PathItem `json:"items" validate:"dive"`
	}
	c, err := catalog.New("ns", &catalog.Options{AllowAnonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	catalog.MustAdd(c, catalog.Func[args, bool]{Name: "f", Tier: catalog.Mutating,
		Handler: func(context.Context, args) (bool, error) { return true, nil }})
	_, err = c.Call(context.Background(), "f", json.RawMessage(`{"n":0,"items":[{"name":"x"}]}`))
	got, _ := json.Marshal(err)
	want := `{"error":"Validation failed","issues":[` +
		`{"path":["n"],"message":"Must be at least 1"},` +
		`{"path":["items",0,"name"],"message":"Must be at least 2 characters"}]}`
	if string(got) != want {
		t.Errorf("issues\n got %s\nwant %s", got, want)
	}
}
