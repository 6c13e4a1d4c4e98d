package authserver

import (
	"os"
	"testing"
)

// TestMain caps the stored rows at a tenth of production's: the flood
// tests fill the tables to the cap on every engine, and the rules they
// check do not depend on its size.
func TestMain(m *testing.M) {
	maxStored = 1000
	os.Exit(m.Run())
}
