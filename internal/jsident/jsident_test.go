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

func TestFrom(t *testing.T) {
	for in, want := range map[string]string{
		"getSessions": "getSessions", "get-notes": "get_notes", "files.read": "files_read",
		"a--b..c": "a_b_c", "-lead": "lead", "trail-": "trail", "2fa": "_2fa", "delete": "delete_",
		"garagé": "garag", "get /pets/{id}": "get_pets_id", "---": "none_", "": "none_",
	} {
		got := jsident.From(in, "none_")
		if got != want {
			t.Errorf("From(%q) = %q, want %q", in, got, want)
		}
		if !jsident.Valid(got) {
			t.Errorf("From(%q) = %q is not valid", in, got)
		}
	}
}
