package bearer_test

import (
	"testing"

	"go.uber.org/goleak"
)

// No verifier, cache or middleware may leave goroutines behind. Idle
// keep-alive connections of HTTP clients are not leaks.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
	)
}
