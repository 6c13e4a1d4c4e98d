package jsident_test

import (
	"testing"

	"github.com/brakinglab/codemode-go/internal/jsident"
)

func TestCheck(t *testing.T) {
	for s, want := range map[string]bool{
		"brakinglab": true, "_x": true, "$a1": true, "getSessions": true,
		"": false, "1a": false, "garagé": false, "a-b": false, "ünïcode": false,
		"class": false, "await": false, "undefined": false, "eval": false,
	} {
		if got := jsident.Valid(s); got != want {
			t.Errorf("Valid(%q) = %v, want %v", s, got, want)
		}
	}
}
