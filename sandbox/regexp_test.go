package sandbox

import (
	"testing"

	"github.com/dlclark/regexp2/v2"
)

// TestRegexpBoundBeforeCompile checks that the match timeout is in place
// before any program is compiled, since regexp literals are compiled with
// the program.
func TestRegexpBoundBeforeCompile(t *testing.T) {
	if err := (&compiled{js: "/(a+)+$/.test('a')"}).compileJS(); err != nil {
		t.Fatal(err)
	}
	if regexp2.DefaultMatchTimeout != regexpMatchTimeout {
		t.Errorf("DefaultMatchTimeout = %v after compiling, want %v", regexp2.DefaultMatchTimeout, regexpMatchTimeout)
	}
}
