package sandbox

import (
	"github.com/dop251/goja/token"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
)

// plainWalker reads a goja AST for what esbuild, with transformOptions,
// would change in a program that is plain JavaScript:
//
//   - regular expressions with the d or v flag or a \p{…} escape (goja
//     lacks them: esbuild turns the literal into new RegExp(…));
//   - async generators (lowered);
//   - function declarations in blocks (esbuild applies the sloppy-mode
//     hoisting of Annex B; goja compiles strict code);
//   - a declaration esbuild renames (x becomes x2, which a function's or
//     class's name and error messages show): one whose name an enclosing
//     scope declares too, or that some reference leaves unbound (a global
//     such as console).
//
// Any node it does not know makes the program not plain. It also collects
// where regular-expression literals are, for plainTokens.
type plainWalker struct {
	notPlain bool
	regexps  map[int]int // byte offset in the source → length
	scopes   []*walkScope
	refs     []walkRef
	cur      *walkScope
	// anchors are the byte offsets where esbuild's source map would have
	// a mapping: where expressions, statements and property names start,
	// and closing parentheses, brackets and braces. A position between
	// two maps to the one before it on the esbuild path; directOriginal
	// does the same.
	anchors []int
	// redirects maps the start of an arrow function written (x) => … to
	// its parameter: esbuild prints it x => …, and its map gives the
	// arrow's start the parameter's position.
	redirects map[int]int
	src       string // the wrapped source
	// instanceofNames are the identifiers whose value esbuild folds if it
	// inlines them: either side of instanceof, and the operands knownTruth
	// looks at; primitiveConsts the consts whose value may be a primitive
	// esbuild inlines (plain refuses the program if the two meet).
	instanceofNames []string
	primitiveConsts map[string]bool
	// truth keeps knownTruth's answers for operators and conditionals.
	truth map[ast.Expression]bool
	// typed are the bindings that may carry a type annotation esbuild
	// erases (annotatable): byte offset in the source → name; nil, and not
	// recorded, unless the source had annotations blanked.
	typed map[int]string
}

func (w *plainWalker) anchor(idx file.Idx) {
	if idx > 0 {
		w.anchors = append(w.anchors, int(idx)-1)
	}
}

type walkScope struct {
	parent *walkScope
	names  map[string]int // declarations in this scope
	body   bool           // a function body: var declarations land here
}

type walkRef struct {
	name  string
	scope *walkScope
}

func newPlainWalker(src string) *plainWalker {
	w := &plainWalker{regexps: map[int]int{}, redirects: map[int]int{}, src: src, primitiveConsts: map[string]bool{"undefined": true}}
	w.push(true)
	return w
}

func (w *plainWalker) push(body bool) {
	s := &walkScope{parent: w.cur, names: map[string]int{}, body: body}
	w.scopes = append(w.scopes, s)
	w.cur = s
}

func (w *plainWalker) pop() { w.cur = w.cur.parent }

func (w *plainWalker) declare(name string, s *walkScope) { s.names[name]++ }

// varScope is the nearest function body, where var declarations land.
func (w *plainWalker) varScope() *walkScope {
	s := w.cur
	for !s.body {
		s = s.parent
	}
	return s
}

// plain reports whether nothing found needs esbuild, after resolving
// every reference: a declaration is renamed by esbuild if its name is
// declared again in its scope or an enclosing one, or is unbound
// somewhere.
func (w *plainWalker) plain() bool {
	if w.notPlain {
		return false
	}
	for _, name := range w.instanceofNames {
		if w.primitiveConsts[name] {
			return false
		}
	}
	unbound := map[string]bool{}
	for _, r := range w.refs {
		s := r.scope
		for s != nil && s.names[r.name] == 0 {
			s = s.parent
		}
		if s == nil {
			unbound[r.name] = true
		}
	}
	for _, s := range w.scopes {
		for name, n := range s.names {
			if n > 1 || unbound[name] {
				return false
			}
			for p := s.parent; p != nil; p = p.parent {
				if p.names[name] > 0 {
					return false
				}
			}
		}
	}
	return true
}

func (w *plainWalker) program(p *ast.Program) {
	for _, s := range p.Body {
		w.stmt(s, true)
	}
}

// stmts walks a statement list; top is true for a function's body, where
// function declarations are at their own level.
func (w *plainWalker) stmts(list []ast.Statement, top bool) {
	for _, s := range list {
		w.stmt(s, top)
	}
}

func (w *plainWalker) block(b *ast.BlockStatement) {
	if b == nil {
		return
	}
	w.anchor(b.LeftBrace)
	w.anchor(b.RightBrace)
	w.push(false)
	w.stmts(b.List, false)
	w.pop()
}

func (w *plainWalker) stmt(s ast.Statement, top bool) {
	if w.notPlain || s == nil {
		return
	}
	if _, ok := s.(*ast.ExpressionStatement); !ok { // esbuild maps an expression statement's expression only
		w.anchor(s.Idx0())
	}
	switch s := s.(type) {
	case *ast.EmptyStatement, *ast.DebuggerStatement, *ast.BranchStatement:
	case *ast.BlockStatement:
		w.block(s)
	case *ast.ExpressionStatement:
		w.expr(s.Expression)
	case *ast.VariableStatement:
		w.declarations(s.List, w.varScope())
	case *ast.LexicalDeclaration:
		if s.Token == token.CONST {
			w.consts(s.List)
		}
		w.declarations(s.List, w.cur)
	case *ast.FunctionDeclaration:
		if !top {
			w.notPlain = true
			return
		}
		if s.Function.Name != nil {
			w.declare(s.Function.Name.Name.String(), w.cur)
		}
		w.function(s.Function, false)
	case *ast.ClassDeclaration:
		if s.Class.Name != nil {
			w.declare(s.Class.Name.Name.String(), w.cur)
		}
		w.class(s.Class, false)
	case *ast.IfStatement:
		w.expr(s.Test)
		w.stmt(s.Consequent, false)
		w.stmt(s.Alternate, false)
	case *ast.ReturnStatement:
		w.expr(s.Argument)
	case *ast.ThrowStatement:
		w.expr(s.Argument)
	case *ast.WhileStatement:
		w.expr(s.Test)
		w.stmt(s.Body, false)
	case *ast.DoWhileStatement:
		w.stmt(s.Body, false)
		w.expr(s.Test)
	case *ast.LabelledStatement:
		w.stmt(s.Statement, false)
	case *ast.TryStatement:
		w.block(s.Body)
		if s.Catch != nil {
			w.push(false)
			if s.Catch.Parameter != nil {
				if id, ok := s.Catch.Parameter.(*ast.Identifier); ok {
					w.annotatableIdent(id)
				}
				w.target(s.Catch.Parameter, w.cur)
			}
			w.block(s.Catch.Body)
			w.pop()
		}
		w.block(s.Finally)
	case *ast.SwitchStatement:
		w.expr(s.Discriminant)
		w.push(false)
		for _, c := range s.Body {
			w.expr(c.Test)
			w.stmts(c.Consequent, false)
		}
		w.pop()
	case *ast.ForStatement:
		w.push(false)
		switch in := s.Initializer.(type) {
		case nil:
		case *ast.ForLoopInitializerExpression:
			w.expr(in.Expression)
		case *ast.ForLoopInitializerVarDeclList:
			w.declarations(in.List, w.varScope())
		case *ast.ForLoopInitializerLexicalDecl:
			if in.LexicalDeclaration.Token == token.CONST {
				w.consts(in.LexicalDeclaration.List)
			}
			w.declarations(in.LexicalDeclaration.List, w.cur)
		default:
			w.notPlain = true
		}
		w.expr(s.Test)
		w.expr(s.Update)
		w.stmt(s.Body, false)
		w.pop()
	case *ast.ForInStatement:
		w.forInto(s.Into, s.Source, s.Body)
	case *ast.ForOfStatement:
		w.forInto(s.Into, s.Source, s.Body)
	default: // with, and anything this walker does not know
		w.notPlain = true
	}
}

func (w *plainWalker) forInto(into ast.ForInto, src ast.Expression, body ast.Statement) {
	w.push(false)
	switch in := into.(type) {
	case *ast.ForIntoVar:
		w.bindings([]*ast.Binding{in.Binding}, w.varScope())
	case *ast.ForDeclaration:
		w.target(in.Target, w.cur)
	case *ast.ForIntoExpression:
		w.expr(in.Expression)
	default:
		w.notPlain = true
	}
	w.expr(src)
	w.stmt(body, false)
	w.pop()
}

// consts records the names of consts whose value esbuild may know to be
// a primitive: all but those initialized with what is surely an object or
// unknown to it.
func (w *plainWalker) consts(list []*ast.Binding) {
	for _, b := range list {
		id, ok := b.Target.(*ast.Identifier)
		if !ok {
			continue
		}
		switch b.Initializer.(type) {
		case *ast.CallExpression, *ast.NewExpression, *ast.ObjectLiteral, *ast.ArrayLiteral, *ast.FunctionLiteral,
			*ast.ArrowFunctionLiteral, *ast.ClassLiteral, *ast.AwaitExpression, *ast.DotExpression, *ast.BracketExpression:
		default:
			w.primitiveConsts[id.Name.String()] = true
		}
	}
}

// declarations walks the bindings of a var, let or const declaration
// (not of a for-in or for-of head), each of which may carry a type
// annotation.
func (w *plainWalker) declarations(list []*ast.Binding, s *walkScope) {
	for _, b := range list {
		w.annotatable(b)
	}
	w.bindings(list, s)
}

func (w *plainWalker) bindings(list []*ast.Binding, s *walkScope) {
	for _, b := range list {
		w.target(b.Target, s)
		w.expr(b.Initializer)
	}
}

// target walks a binding target, declaring its names in s; with s nil it
// is an assignment target, whose names are references.
func (w *plainWalker) target(t ast.Expression, s *walkScope) {
	switch t := t.(type) {
	case nil:
	case *ast.Identifier:
		w.anchor(t.Idx)
		if s == nil {
			w.ref(t)
		} else {
			w.declare(t.Name.String(), s)
		}
	case *ast.ArrayPattern:
		for _, e := range t.Elements {
			w.target(e, s)
		}
		w.target(t.Rest, s)
	case *ast.ObjectPattern:
		for _, p := range t.Properties {
			switch p := p.(type) {
			case *ast.PropertyShort:
				if s == nil {
					w.ref(&p.Name)
				} else {
					w.declare(p.Name.Name.String(), s)
				}
				w.expr(p.Initializer)
			case *ast.PropertyKeyed:
				if p.Computed {
					w.expr(p.Key)
				}
				w.target(p.Value, s)
			default:
				w.notPlain = true
			}
		}
		w.target(t.Rest, s)
	case *ast.AssignExpression: // a default
		w.target(t.Left, s)
		w.expr(t.Right)
	case *ast.Binding:
		w.target(t.Target, s)
		w.expr(t.Initializer)
	default:
		if s == nil { // a.b = …, a[i] = …
			w.expr(t)
		} else {
			w.notPlain = true
		}
	}
}
