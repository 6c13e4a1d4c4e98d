package typegen_test

import (
	"github.com/brakinglab/codemode-go/internal/golden"
	"path/filepath"
	"testing"

	"github.com/brakinglab/codemode-go/typegen"
)

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
			golden.Check(t, filepath.Join("testdata", tc.name+".golden"), []byte(got))
			again, _ := typegen.Generate(fixture(), tc.opts)
			if again != got {
				t.Error("output is not deterministic")
			}
		})
	}
}
