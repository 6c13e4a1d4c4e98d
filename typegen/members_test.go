package typegen_test

import (
	"regexp"
	"strings"
)

// argMembers returns the top-level members of fn's argument type in decls
// (written inline in its signature, or a declared interface), each mapped
// to whether it is required. ok is false when fn is not declared.
func argMembers(decls, fn string) (members map[string]bool, ok bool) {
	start := -1
	for _, sig := range []string{"function " + fn + "(args: ", "function " + fn + "(args?: ", "const " + fn + ": Write<", "const " + fn + ": WriteOpt<"} {
		if i := strings.Index(decls, sig); i >= 0 {
			start = i + len(sig)
			break
		}
	}
	if start < 0 {
		return nil, false
	}
	rest := decls[start:]
	if !strings.HasPrefix(rest, "{") { // a named type: its interface
		name := regexp.MustCompile(`^\w+`).FindString(rest)
		i := strings.Index(decls, "\ninterface "+name+" {")
		if i < 0 {
			return nil, false
		}
		rest = decls[i+len("\ninterface "+name+" "):]
	}
	return objectMembers(rest), true
}

var memberRe = regexp.MustCompile(`^("[^"]*"|[\w$]+)(\??):`)

// objectMembers parses the object type text starts with, up to its
// closing brace: member name → required.
func objectMembers(text string) map[string]bool {
	out := map[string]bool{}
	depth := 0
	var cur strings.Builder
	flush := func() {
		if m := memberRe.FindStringSubmatch(strings.TrimSpace(cur.String())); m != nil {
			out[strings.Trim(m[1], `"`)] = m[2] == ""
		}
		cur.Reset()
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '/' && i+1 < len(text) && (text[i+1] == '/' || text[i+1] == '*'):
			end := "\n"
			if text[i+1] == '*' {
				end = "*/"
			}
			j := strings.Index(text[i:], end)
			if j < 0 {
				return out
			}
			i += j + len(end) - 1
			if end == "\n" && depth == 1 {
				flush()
			}
			continue
		case c == '{':
			depth++
			if depth == 1 {
				continue
			}
		case c == '}':
			depth--
			if depth == 0 {
				flush()
				return out
			}
		case depth == 1 && (c == ';' || c == '\n'):
			flush()
			continue
		}
		if depth >= 1 {
			cur.WriteByte(c)
		}
	}
	return out
}
