package typegen_test

import (
	"encoding/json"
	"github.com/brakinglab/codemode-go/internal/golden"
	"path/filepath"
	"testing"

	"github.com/brakinglab/codemode-go/typegen"
)

func TestSchemaGolden(t *testing.T) {
	schemas := map[string]json.RawMessage{}
	for _, f := range fixture().Functions() {
		in, err := typegen.InputSchema(f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := typegen.OutputSchema(f)
		if err != nil {
			t.Fatal(err)
		}
		schemas[f.Name+".input"] = in
		schemas[f.Name+".output"] = out
	}
	got, err := json.MarshalIndent(schemas, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden.Check(t, filepath.Join("testdata", "schemas.json.golden"), got)
}
