// Package jsonscan walks the structure of JSON text without decoding it.
// It is the one place that knows how to skip JSON strings (and the escapes
// in them) while following the nesting of arrays and objects; the sandbox
// uses it to bound the depth of values, codemode to size their indented
// rendering.
package jsonscan

// Structural calls fn for each structural byte of b outside strings ('[',
// '{', ']', '}', ',' and ':'), in order, with the nesting depth after it:
// 1 after the outermost '[' or '{', 0 after its closing bracket. b must be
// valid JSON; on other input the depths are meaningless but it does not
// panic.
func Structural(b []byte, fn func(c byte, depth int)) {
	depth := 0
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			fn(c, depth)
		case ']', '}':
			depth--
			fn(c, depth)
		case ',', ':':
			fn(c, depth)
		}
	}
}

// Depth returns the deepest nesting of arrays and objects in b: 0 for a
// scalar, 1 for a flat array or object.
func Depth(b []byte) int {
	deepest := 0
	Structural(b, func(_ byte, depth int) { deepest = max(deepest, depth) })
	return deepest
}
