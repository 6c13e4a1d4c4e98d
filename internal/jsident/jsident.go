// Package jsident is the one rule for which names can be declared to
// scripts: catalog checks namespaces and function names with it at
// registration, and the sandbox checks host namespaces with it before
// binding them, so a name the catalog accepts is always one the sandbox
// binds. [From] is the one conversion of a foreign name (an MCP tool's,
// an OpenAPI operation's) to such a name, shared by mcpsource and
// openapisource so that both sources name alike.
package jsident

import (
	"errors"
	"fmt"
	"strings"
)

// reserved lists words that cannot name a declared function or namespace:
// JavaScript's reserved words and the globals a script could not shadow.
var reserved = map[string]bool{
	"break": true, "case": true, "catch": true, "class": true, "const": true, "continue": true,
	"debugger": true, "default": true, "delete": true, "do": true, "else": true, "enum": true,
	"export": true, "extends": true, "false": true, "finally": true, "for": true, "function": true,
	"if": true, "import": true, "in": true, "instanceof": true, "new": true, "null": true,
	"return": true, "super": true, "switch": true, "this": true, "throw": true, "true": true,
	"try": true, "typeof": true, "var": true, "void": true, "while": true, "with": true,
	"implements": true, "interface": true, "let": true, "package": true, "private": true,
	"protected": true, "public": true, "static": true, "yield": true, "await": true,
	"arguments": true, "eval": true, "undefined": true, "NaN": true, "Infinity": true,
}

// Valid reports whether s is a plain ASCII JavaScript identifier (letters,
// digits, _ and $, not starting with a digit) that is not reserved.
func Valid(s string) bool { return Check(s) == nil }

// Check is Valid with the reason, phrased for the engineer registering the
// name.
func Check(s string) error {
	if s == "" {
		return errors.New("must not be empty")
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
		case i > 0 && r >= '0' && r <= '9':
		default:
			return fmt.Errorf("%q is not a valid JavaScript identifier (ASCII letters, digits, _ and $, not starting with a digit)", s)
		}
	}
	if reserved[s] {
		return fmt.Errorf("%q is a reserved word in JavaScript", s)
	}
	return nil
}

// From returns s when it is [Valid], else s with every run of characters
// that cannot be in an identifier replaced by one underscore ("get-notes"
// → "get_notes", "files.read" → "files_read"), an underscore put before a
// leading digit and after a reserved word ("delete" → "delete_"). When
// nothing of s is left it returns empty, which must itself be Valid.
// Underscores, not camelCase, keep the converted name recognisable next
// to the original.
func From(s, empty string) string {
	if Valid(s) {
		return s
	}
	var b strings.Builder
	gap := false
	for _, r := range s {
		ok := r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			gap = true
			continue
		}
		if gap && b.Len() > 0 {
			b.WriteByte('_')
		}
		gap = false
		b.WriteRune(r)
	}
	n := b.String()
	if n == "" {
		return empty
	}
	if n[0] >= '0' && n[0] <= '9' {
		n = "_" + n
	}
	if !Valid(n) {
		n += "_" // a reserved word
	}
	return n
}
