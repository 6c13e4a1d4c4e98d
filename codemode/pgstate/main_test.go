package pgstate_test

import (
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/brakinglab/codemode-go/internal/leakcheck"
	"github.com/brakinglab/codemode-go/internal/pgtest"
)

// TestMain stops the shared PostgreSQL server, and fails the run if any
// goroutine outlives the tests: Close must stop the listener and the
// sweeper.
func TestMain(m *testing.M) {
	code := pgtest.Run(m)
	if code == 0 {
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		if err := leakcheck.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
