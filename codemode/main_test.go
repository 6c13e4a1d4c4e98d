package codemode_test

import (
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/brakinglab/codemode-go/internal/leakcheck"
)

// TestMain fails the run if any goroutine outlives the tests: every
// server, session, sandbox and execution must be shut down by Close and
// the tests' cleanups.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		// Keep-alive connections of the shared client transport are the
		// client's, not the server's.
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		if err := leakcheck.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
