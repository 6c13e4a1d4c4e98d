package typegen_test

import (
	"bytes"
	"encoding/json"
	"os"
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
	golden := filepath.Join("testdata", "schemas.json.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("schemas differ from %s (run go test -update after checking the change):\n%s", golden, got)
	}
}
