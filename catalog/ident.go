package catalog

import (
	"errors"
	"fmt"
	"unicode"
)

// reserved lists words that cannot name a declared function or namespace
// in TypeScript declarations.
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

// checkIdent reports whether s is a JavaScript identifier that is safe to
// declare: letters, digits, _ and $, not starting with a digit, not reserved.
func checkIdent(s string) error {
	if s == "" {
		return errors.New("must not be empty")
	}
	for i, r := range s {
		ok := r == '_' || r == '$' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))
		if !ok {
			return fmt.Errorf("%q is not a valid JavaScript identifier (letters, digits, _ and $, not starting with a digit)", s)
		}
	}
	if reserved[s] {
		return fmt.Errorf("%q is a reserved word in JavaScript", s)
	}
	return nil
}
