package ghcatalog_test

import (
	"testing"

	"github.com/brakinglab/codemode-go/internal/ghcatalog"
)

func TestNew(t *testing.T) {
	c, err := ghcatalog.New()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Functions()); n != ghcatalog.Operations || n < 300 {
		t.Fatalf("%d functions, want %d (at least 300)", n, ghcatalog.Operations)
	}
}
