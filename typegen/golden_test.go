package typegen_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/brakinglab/codemode-go/typegen"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *typegen.Options
	}{
		{"brakinglab.d.ts", nil},
		{"brakinglab_compact.d.ts", &typegen.Options{Compact: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := typegen.Generate(fixture(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (run go test -update after checking the change):\n%s", golden, got)
			}
			again, _ := typegen.Generate(fixture(), tc.opts)
			if again != got {
				t.Error("output is not deterministic")
			}
		})
	}
}
