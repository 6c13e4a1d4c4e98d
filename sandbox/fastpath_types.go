package sandbox

// Simple type annotations on the fast path: TypeScript whose only
// TypeScript syntax is annotations such as (c: any) => … or
// const n: number = … runs without esbuild once the annotations are
// blanked out. docs/sandbox.md states the rule; TestFastPathDifferential
// is its proof, as for plain JavaScript.

import "github.com/dop251/goja/ast"

// annotationTypes are the types blankAnnotations erases: keyword types,
// each optionally followed by [] pairs. A reference to another type (a
// generic, a union, an object type) is left alone, so goja fails on it
// and the program takes the esbuild path.
var annotationTypes = []string{"any", "unknown", "string", "number", "boolean", "object"}

// annotation is one blanked annotation: the identifier it followed, as
// byte offsets in the model's source.
type annotation struct {
	start, end int
}

// blankAnnotations returns ts with every ": T" that follows an
// identifier, where T is one of annotationTypes (with optional [] pairs)
// and is followed by one of , ) = ; or a line break, replaced by spaces,
// and the identifiers it followed. Spaces keep every byte offset, line
// and column. The text found may be anything (an object literal's
// property, a label, part of a string): compileDirect takes the program
// only if each identifier is, in the blanked program's AST, a binding
// that TypeScript lets carry an annotation (annotatedBindings).
func blankAnnotations(ts string) (string, []annotation) {
	var (
		out   []byte
		found []annotation
	)
	for i := 0; i < len(ts); i++ {
		if ts[i] != ':' {
			continue
		}
		end := identBefore(ts, i)
		if end < 0 {
			continue
		}
		start := end
		for start > 0 && isIdentByte(ts[start-1]) {
			start--
		}
		if start == end || isDigit(ts[start]) || (start > 0 && (ts[start-1] == '.' || ts[start-1] == '\\' || ts[start-1] == '#' || ts[start-1] >= 0x80)) {
			continue
		}
		stop := typeAfter(ts, i+1)
		if stop < 0 {
			continue
		}
		if out == nil {
			out = []byte(ts)
		}
		for j := i; j < stop; j++ {
			out[j] = ' '
		}
		found = append(found, annotation{start, end})
		i = stop - 1
	}
	if out == nil {
		return ts, nil
	}
	return string(out), found
}

// identBefore returns where the identifier ends that the colon at i
// follows (spaces and tabs may lie between), or -1.
func identBefore(ts string, i int) int {
	j := i
	for j > 0 && (ts[j-1] == ' ' || ts[j-1] == '\t') {
		j--
	}
	if j == 0 || !isIdentByte(ts[j-1]) {
		return -1
	}
	return j
}

// typeAfter reads " T[]…" from i and returns where it ends, when what
// follows (after spaces) is , ) ; a line break, or = not starting == or
// =>; else -1.
func typeAfter(ts string, i int) int {
	for i < len(ts) && (ts[i] == ' ' || ts[i] == '\t') {
		i++
	}
	n := 0
	for _, t := range annotationTypes {
		if len(ts)-i >= len(t) && ts[i:i+len(t)] == t {
			n = len(t)
			break
		}
	}
	if n == 0 {
		return -1
	}
	i += n
	if i < len(ts) && isIdentByte(ts[i]) {
		return -1 // anyThing, strings, …
	}
	for i+1 < len(ts) && ts[i] == '[' && ts[i+1] == ']' {
		i += 2
	}
	stop := i
	for i < len(ts) && (ts[i] == ' ' || ts[i] == '\t') {
		i++
	}
	if i == len(ts) {
		return -1
	}
	switch ts[i] {
	case ',', ')', ';', '\n', '\r':
		return stop
	case '=':
		if i+1 < len(ts) && (ts[i+1] == '=' || ts[i+1] == '>') {
			return -1
		}
		return stop
	}
	return -1
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// annotatable records the binding b declares when TypeScript lets it
// carry an annotation that esbuild erases: a parameter, or a variable of
// a var, let or const declaration (not of a for-in or for-of head), whose
// target is a single identifier, not a pattern (in a pattern, a: string
// renames a property).
func (w *plainWalker) annotatable(b *ast.Binding) {
	if id, ok := b.Target.(*ast.Identifier); ok {
		w.annotatableIdent(id)
	}
}

// annotatableIdent records id as a binding that may carry an annotation,
// when the source had annotations blanked (typed is made then).
func (w *plainWalker) annotatableIdent(id *ast.Identifier) {
	if w.typed != nil {
		w.typed[int(id.Idx)-1] = id.Name.String()
	}
}

// annotatedBindings reports whether each of found (offsets in the model's
// source, which the wrapped program js shifts by len(wrapPrefix)) is a
// binding the walker recorded as annotatable, with the same name as the
// text: then the blanked ": T" was a type annotation, which esbuild
// erases, and nothing else.
func (w *plainWalker) annotatedBindings(found []annotation, ts string) bool {
	for _, a := range found {
		name, ok := w.typed[a.start+len(wrapPrefix)]
		if !ok || name != ts[a.start:a.end] {
			return false
		}
	}
	return true
}
