package sandbox_test

import (
	"errors"
	"fmt"
	"github.com/brakinglab/codemode-go/sandbox"
	"testing"
)

// A nil *Error held in an error (a result field that stayed nil, passed
// on as an error) matches nothing with errors.Is instead of panicking, and
// a nil *Error target matches nothing either; kinds still match.
func TestErrorIsNil(t *testing.T) {
	var none *sandbox.Error
	var err error = none
	timeout := &sandbox.Error{Kind: sandbox.KindTimeout}
	for _, tc := range []struct {
		err, target error
		want        bool
	}{
		{err, timeout, false},
		{fmt.Errorf("run: %w", err), timeout, false},
		{timeout, none, false},
		{timeout, &sandbox.Error{Kind: sandbox.KindTimeout}, true},
		{fmt.Errorf("run: %w", timeout), &sandbox.Error{Kind: sandbox.KindTimeout}, true},
		{timeout, &sandbox.Error{Kind: sandbox.KindRuntime}, false},
	} {
		if got := errors.Is(tc.err, tc.target); got != tc.want {
			t.Errorf("errors.Is(%#v, %#v) = %v, want %v", tc.err, tc.target, got, tc.want)
		}
	}
}
