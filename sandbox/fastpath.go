package sandbox

// The plain-JavaScript fast path: a program that goja parses and that
// esbuild would not change in meaning skips esbuild, whose transform costs
// about a third of a millisecond for any program. docs/sandbox.md states
// the rule and why it is sound; TestFastPathDifferential is its proof.

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
)

// compileDirect compiles ts without esbuild when it is plain JavaScript
// that esbuild would leave alone, and returns nil when it is not, or may
// not be: the caller then transpiles it as before. It never reports an
// error: every failure (a syntax error, TypeScript syntax, a strict-mode
// error) takes the esbuild path, which reports it as it always did.
func compileDirect(ts, file string) *compiled {
	// Line terminators other than \n and \r\n, and HTML-like comments,
	// are rare and read differently by the two parsers' line counting or
	// comment rules.
	if strings.ContainsAny(ts, "\u2028\u2029") || strings.Contains(ts, "<!--") || strings.Contains(ts, "-->") || loneCR(ts) {
		return nil
	}
	src := ts
	var typed []annotation
	if looksTyped(ts) {
		// Simple annotations are blanked out (fastpath_types.go); any
		// other TypeScript syntax left makes the goja parse fail.
		if src, typed = blankAnnotations(ts); typed == nil || looksTyped(src) {
			return nil // save the goja parse that would fail
		}
	}
	js := wrapPrefix + src + wrapSuffix
	boundRegexps() // regexp literals are compiled here, with the timeout of the moment
	ast, err := parser.ParseFile(nil, fileName(file), js, 0, parser.WithDisableSourceMaps)
	if err != nil {
		return nil
	}
	w := newPlainWalker(js)
	if typed != nil {
		w.typed = map[int]string{} // only blanked annotations need the bindings
	}
	w.program(ast)
	if !w.plain() || !plainTokens(js, w.regexps) || !w.annotatedBindings(typed, ts) {
		return nil
	}
	prog, err := goja.CompileAST(ast, true)
	if err != nil {
		return nil
	}
	slices.Sort(w.anchors)
	return &compiled{file: file, js: js, ts: ts, program: prog, lines: strings.Count(ts, "\n") + 1, direct: true, anchors: slices.Compact(w.anchors), redirects: w.redirects}
}

// typeHints are texts that nearly always mean TypeScript. Finding one
// only skips the direct attempt, which is always safe; it saves a goja
// parse that would fail (goja reads to the end, collecting errors).
//
// Simple annotations (": any", …) are blanked first when the scan finds
// one (blankAnnotations); the scan then runs again on what is left, so
// a program that also has a return type, an optional parameter, a type
// alias or an enum skips the parse too.
var typeHints = []string{": any", ": string", ": number", ": boolean", ": unknown", ": Record<", ": Array<", " as any", " as const", "interface ", "<any>",
	"): ", "?: ", "\ntype ", ";type ", "\nenum ", " satisfies "}

// looksTyped reports whether ts holds one of typeHints.
func looksTyped(ts string) bool {
	for _, h := range typeHints {
		if strings.Contains(ts, h) {
			return true
		}
	}
	return false
}

// loneCR reports whether s has a carriage return not followed by a line
// feed.
func loneCR(s string) bool {
	for i := strings.IndexByte(s, '\r'); i >= 0; {
		if i+1 >= len(s) || s[i+1] != '\n' {
			return true
		}
		j := strings.IndexByte(s[i+1:], '\r')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// directOriginal maps a goja position in a directly compiled program
// (line, 1-based byte column of the wrapped source) to the model's source
// as the esbuild path's source map does: to the last place at or before it
// where esbuild would have put a mapping (c.anchors), with line 1 losing
// the wrapper's prefix and the column counted in UTF-16 code units, as
// source maps count.
func (c *compiled) directOriginal(line, col int) (int, int, bool) {
	if line < 1 || (c.lines > 0 && line > c.lines) {
		return 0, 0, false
	}
	start := 0 // of the line, in c.js
	for i := 1; i < line; i++ {
		n := strings.IndexByte(c.js[start:], '\n')
		if n < 0 {
			return 0, 0, false
		}
		start += n + 1
	}
	off := start + col - 1
	if to, ok := c.redirects[off]; ok {
		off = to
	}
	if i, found := slices.BinarySearch(c.anchors, off); found {
		off = c.anchors[i]
	} else if i > 0 {
		off = c.anchors[i-1]
	}
	off = max(0, min(off, len(c.js)))
	line = 1 + strings.Count(c.js[:off], "\n")
	start = strings.LastIndexByte(c.js[:off], '\n') + 1
	if line > c.lines {
		return 0, 0, false
	}
	text := c.js[start:off]
	if line == 1 {
		if len(text) <= len(wrapPrefix) {
			return 1, 1, true
		}
		text = text[len(wrapPrefix):]
	}
	units := 0
	for _, r := range text {
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
	}
	if !utf8.ValidString(text) {
		units = len(text)
	}
	return line, units + 1, true
}

// plainTokens reads the wrapped source's tokens for what TypeScript reads
// differently from JavaScript in text that parses as both. regexps maps
// the byte offset of each regular-expression literal to its length (a
// slash there starts one; elsewhere it divides). It returns false where:
//
//   - a '<' operator (also '<=', '<<', '<<=') is followed by a '>' operator
//     (also '>=', '>>', '>>>' and their assignments) in the same
//     parentheses, brackets or braces with no ';' between them: TypeScript
//     may read the span as type arguments (f<a, b>(c), a<b>\nc);
//   - a ')' is followed by ':': TypeScript may read "(a): b => c" as an
//     arrow function with a return type (x ? (a) : b => c).
func plainTokens(js string, regexps map[int]int) bool {
	type group struct {
		close    byte // the closing bracket, or '`' for a template's ${ }
		lessThan bool // a '<' operator since the group opened or its last ';'
	}
	stack := []group{{close: 0}}
	prevParen := false // the previous token was ')'
	for i := 0; i < len(js); {
		ch := js[i]
		top := &stack[len(stack)-1]
		wasParen := prevParen
		prevParen = false
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v':
			prevParen = wasParen
			i++
		case ch == '/' && i+1 < len(js) && js[i+1] == '/':
			prevParen = wasParen
			n := strings.IndexByte(js[i:], '\n')
			if n < 0 {
				return true
			}
			i += n
		case ch == '/' && i+1 < len(js) && js[i+1] == '*':
			prevParen = wasParen
			n := strings.Index(js[i+2:], "*/")
			if n < 0 {
				return false
			}
			i += n + 4
		case ch == '/':
			if n, ok := regexps[i]; ok {
				i += n
			} else {
				i++
			}
		case ch == '\'' || ch == '"':
			i = skipString(js, i)
		case ch == '`' || (ch == '}' && top.close == '`'):
			if ch == '}' {
				stack = stack[:len(stack)-1]
			}
			end, interp := skipTemplate(js, i+1)
			i = end
			if interp {
				stack = append(stack, group{close: '`'})
			}
		case ch == '(' || ch == '[' || ch == '{':
			stack = append(stack, group{close: map[byte]byte{'(': ')', '[': ']', '{': '}'}[ch]})
			i++
		case ch == ')' || ch == ']' || ch == '}':
			if len(stack) == 1 || top.close != ch {
				return false // unbalanced: goja parsed it, so this reader is wrong
			}
			stack = stack[:len(stack)-1]
			prevParen = ch == ')'
			i++
		case ch == ';':
			top.lessThan = false
			i++
		case ch == ':':
			if wasParen {
				return false
			}
			i++
		case ch == '<':
			top.lessThan = true
			for i < len(js) && (js[i] == '<' || js[i] == '=') {
				i++
			}
		case ch == '=' && i+1 < len(js) && js[i+1] == '>':
			i += 2 // an arrow
		case ch == '>':
			if top.lessThan {
				return false
			}
			for i < len(js) && (js[i] == '>' || js[i] == '=') {
				i++
			}
		default:
			i++
		}
	}
	return len(stack) == 1
}

// skipString returns the offset after the string literal starting at i.
func skipString(js string, i int) int {
	q := js[i]
	for i++; i < len(js); i++ {
		switch js[i] {
		case '\\':
			i++
		case q:
			return i + 1
		}
	}
	return len(js)
}

// skipTemplate reads template text from i up to its end or its next ${,
// and returns the offset after it and whether a ${ ended it.
func skipTemplate(js string, i int) (int, bool) {
	for ; i < len(js); i++ {
		switch js[i] {
		case '\\':
			i++
		case '`':
			return i + 1, false
		case '$':
			if i+1 < len(js) && js[i+1] == '{' {
				return i + 2, true
			}
		}
	}
	return len(js), false
}
