package saved

// Which functions a saved function's code references, for its tier: the
// code is transpiled by esbuild (it may be TypeScript) and parsed by
// goja's parser, and the syntax tree is walked for ns.fn and ns["fn"].

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	"github.com/evanw/esbuild/pkg/api"
)

// references returns the functions code references in the namespaces of
// nss ("ns.fn", sorted, once each) and the namespaces it uses other than
// to name one of their functions (passed around, iterated, redeclared),
// which make its tier unknowable.
func references(code string, nss map[string]bool) (refs, bare []string, err error) {
	res := api.Transform("async function __saved(input) {\n"+code+"\n}", api.TransformOptions{
		Loader: api.LoaderTS, Target: api.ESNext, LogLevel: api.LogLevelSilent, Supported: lowered,
	})
	if len(res.Errors) > 0 {
		return nil, nil, fmt.Errorf("%s", res.Errors[0].Text)
	}
	prog, err := parser.ParseFile(nil, "saved.js", string(res.Code), 0, parser.WithDisableSourceMaps)
	if err != nil {
		return nil, nil, err
	}
	w := refWalker{nss: nss, refs: map[string]bool{}, bare: map[string]bool{}}
	w.walk(reflect.ValueOf(prog), 0)
	for r := range w.refs {
		refs = append(refs, r)
	}
	for b := range w.bare {
		bare = append(bare, b)
	}
	slices.Sort(refs)
	slices.Sort(bare)
	return refs, bare, nil
}

// lowered is what esbuild lowers for goja's parser, as the sandbox's
// compiler does (its helpers land outside the function, harmlessly).
var lowered = map[string]bool{
	"async-generator": false, "for-await": false, "using": false, "top-level-await": false,
	"decorators": false, "dynamic-import": false, "import-meta": false,
	"regexp-match-indices": false, "regexp-set-notation": false, "regexp-unicode-property-escapes": false,
}

type refWalker struct {
	nss        map[string]bool
	refs, bare map[string]bool
}

var (
	dotType   = reflect.TypeOf((*ast.DotExpression)(nil))
	brackType = reflect.TypeOf((*ast.BracketExpression)(nil))
	identType = reflect.TypeOf((*ast.Identifier)(nil))
	shortType = reflect.TypeOf(ast.PropertyShort{})
)

// maxWalkDepth bounds the walk: code is at most Limits.MaxCodeBytes, but
// a tree can still be deep.
const maxWalkDepth = 2000

// walk visits every node under v, recording references.
func (w *refWalker) walk(v reflect.Value, depth int) {
	if depth > maxWalkDepth {
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem(), depth+1)
		}
		return
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		switch v.Type() {
		case dotType:
			d := v.Interface().(*ast.DotExpression)
			if id, ok := d.Left.(*ast.Identifier); ok && w.nss[string(id.Name)] {
				w.refs[string(id.Name)+"."+string(d.Identifier.Name)] = true
				return
			}
		case brackType:
			b := v.Interface().(*ast.BracketExpression)
			if id, ok := b.Left.(*ast.Identifier); ok && w.nss[string(id.Name)] {
				if s, ok := b.Member.(*ast.StringLiteral); ok {
					w.refs[string(id.Name)+"."+string(s.Value)] = true
					return
				}
			}
		case identType:
			if id := v.Interface().(*ast.Identifier); w.nss[string(id.Name)] {
				w.bare[string(id.Name)] = true
			}
			return
		}
		w.walk(v.Elem(), depth+1)
	case reflect.Struct:
		if v.Type() == shortType {
			if n := string(v.Interface().(ast.PropertyShort).Name.Name); w.nss[n] {
				w.bare[n] = true
			}
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				w.walk(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			w.walk(v.Index(i), depth+1)
		}
	}
}
