package httpmw

import (
	"testing"

	"github.com/brakinglab/codemode-go/internal/leakcheck"
)

// TestMain fails the run if a goroutine outlives the tests.
func TestMain(m *testing.M) { leakcheck.VerifyTestMain(m) }
