package jwtverify_test

import (
	"testing"

	"github.com/brakinglab/codemode-go/internal/leakcheck"
)

// No verifier, cache or middleware may leave goroutines behind. Idle
// keep-alive connections of HTTP clients are not leaks.
func TestMain(m *testing.M) {
	leakcheck.VerifyTestMain(m,
		leakcheck.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		leakcheck.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
	)
}
