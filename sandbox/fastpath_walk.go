package sandbox

import (
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
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
	w := &plainWalker{regexps: map[int]int{}, redirects: map[int]int{}, src: src}
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
		w.bindings(s.List, w.varScope())
	case *ast.LexicalDeclaration:
		w.bindings(s.List, w.cur)
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
			w.bindings(in.List, w.varScope())
		case *ast.ForLoopInitializerLexicalDecl:
			w.bindings(in.LexicalDeclaration.List, w.cur)
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

func (w *plainWalker) ref(id *ast.Identifier) {
	w.refs = append(w.refs, walkRef{name: id.Name.String(), scope: w.cur})
}

func (w *plainWalker) exprs(list []ast.Expression) {
	for _, e := range list {
		w.expr(e)
	}
}

func (w *plainWalker) expr(e ast.Expression) {
	if w.notPlain || e == nil {
		return
	}
	switch x := e.(type) {
	// The expressions esbuild maps where they start (js_printer): not
	// calls, binary, conditional or sequence expressions, whose start is
	// their first operand's, nor undefined, which it prints as void 0.
	case *ast.BinaryExpression, *ast.AssignExpression, *ast.ConditionalExpression, *ast.SequenceExpression,
		*ast.CallExpression, *ast.DotExpression, *ast.PrivateDotExpression, *ast.BracketExpression,
		*ast.OptionalChain, *ast.Optional:
	case *ast.UnaryExpression:
		if !x.Postfix {
			w.anchor(e.Idx0())
		}
	case *ast.Identifier:
		if x.Name != "undefined" {
			w.anchor(e.Idx0())
		}
	case *ast.ArrowFunctionLiteral:
		if id := w.bareParam(x); id != nil {
			w.redirects[int(x.Start)-1] = int(id.Idx) - 1
		} else {
			w.anchor(e.Idx0())
		}
	default:
		w.anchor(e.Idx0())
	}
	switch e := e.(type) {
	case *ast.BooleanLiteral, *ast.NullLiteral, *ast.NumberLiteral, *ast.StringLiteral,
		*ast.ThisExpression, *ast.SuperExpression, *ast.MetaProperty:
	case *ast.Identifier:
		w.ref(e)
	case *ast.RegExpLiteral:
		if strings.ContainsAny(e.Flags, "dv") || strings.Contains(e.Pattern, `\p`) || strings.Contains(e.Pattern, `\P`) {
			w.notPlain = true
		}
		w.regexps[int(e.Idx)-1] = len(e.Literal)
	case *ast.TemplateLiteral:
		w.expr(e.Tag)
		w.exprs(e.Expressions)
	case *ast.ArrayLiteral:
		w.anchor(e.RightBracket)
		w.exprs(e.Value)
	case *ast.ObjectLiteral:
		w.anchor(e.RightBrace)
		for _, p := range e.Value {
			switch p := p.(type) {
			case *ast.PropertyShort:
				w.ref(&p.Name)
				w.expr(p.Initializer)
			case *ast.PropertyKeyed:
				w.anchor(p.Key.Idx0())
				if p.Computed {
					w.expr(p.Key)
				}
				w.expr(p.Value)
			case *ast.SpreadElement:
				w.expr(p.Expression)
			default:
				w.notPlain = true
			}
		}
	case *ast.SpreadElement:
		w.expr(e.Expression)
	case *ast.AssignExpression:
		if e.Operator == token.ASSIGN {
			w.target(e.Left, nil)
		} else {
			w.expr(e.Left)
		}
		w.expr(e.Right)
	case *ast.ArrayPattern, *ast.ObjectPattern:
		w.target(e, nil)
	case *ast.BinaryExpression:
		if e.Operator == token.COALESCE && (logical(e.Left) || logical(e.Right)) {
			// goja accepts a ?? b && c, which JavaScript forbids without
			// parentheses: let esbuild decide.
			w.notPlain = true
		}
		if e.Operator == token.INSTANCEOF {
			switch e.Left.(type) {
			case *ast.Identifier, *ast.NumberLiteral, *ast.StringLiteral, *ast.BooleanLiteral, *ast.NullLiteral, *ast.TemplateLiteral:
				// esbuild folds x instanceof y to false when it knows x is
				// a primitive (a literal, or a const it inlines), even
				// where y is not callable and JavaScript throws.
				w.notPlain = true
			}
		}
		w.expr(e.Left)
		w.expr(e.Right)
	case *ast.UnaryExpression:
		w.expr(e.Operand)
	case *ast.ConditionalExpression:
		w.expr(e.Test)
		w.expr(e.Consequent)
		w.expr(e.Alternate)
	case *ast.SequenceExpression:
		w.exprs(e.Sequence)
	case *ast.CallExpression:
		w.anchor(e.RightParenthesis)
		w.expr(e.Callee)
		w.exprs(e.ArgumentList)
	case *ast.NewExpression:
		w.anchor(e.RightParenthesis)
		w.expr(e.Callee)
		w.exprs(e.ArgumentList)
	case *ast.DotExpression:
		w.anchor(e.Identifier.Idx)
		w.expr(e.Left)
	case *ast.PrivateDotExpression:
		w.anchor(e.Identifier.Idx)
		w.expr(e.Left)
	case *ast.BracketExpression:
		w.anchor(e.RightBracket)
		w.expr(e.Left)
		w.expr(e.Member)
	case *ast.OptionalChain:
		w.expr(e.Expression)
	case *ast.Optional:
		w.expr(e.Expression)
	case *ast.AwaitExpression:
		w.expr(e.Argument)
	case *ast.YieldExpression:
		w.expr(e.Argument)
	case *ast.FunctionLiteral:
		w.function(e, true)
	case *ast.ArrowFunctionLiteral:
		w.push(false) // parameters
		w.params(e.ParameterList)
		switch b := e.Body.(type) {
		case *ast.BlockStatement:
			w.anchor(b.RightBrace)
			w.push(true)
			w.stmts(b.List, true)
			w.pop()
		case *ast.ExpressionBody:
			w.push(true)
			w.expr(b.Expression)
			w.pop()
		default:
			w.notPlain = true
		}
		w.pop()
	case *ast.ClassLiteral:
		w.class(e, true)
	default: // anything this walker does not know
		w.notPlain = true
	}
}

// bareParam returns the one parameter of an arrow function written
// (x) => …, which esbuild prints without the parentheses, or nil.
func (w *plainWalker) bareParam(f *ast.ArrowFunctionLiteral) *ast.Identifier {
	p := f.ParameterList
	if f.Async || p == nil || p.Rest != nil || len(p.List) != 1 || p.List[0].Initializer != nil {
		return nil
	}
	id, ok := p.List[0].Target.(*ast.Identifier)
	if !ok || int(f.Start) < 1 || int(f.Start) > len(w.src) || w.src[int(f.Start)-1] != '(' {
		return nil
	}
	return id
}

// function walks a function; named is true for a function expression,
// whose name is bound in a scope of its own.
func (w *plainWalker) function(f *ast.FunctionLiteral, expression bool) {
	if f.Async && f.Generator {
		w.notPlain = true
		return
	}
	if expression && f.Name != nil {
		w.push(false)
		w.declare(f.Name.Name.String(), w.cur)
		defer w.pop()
	}
	w.push(false) // parameters: esbuild gives them a scope of their own
	w.params(f.ParameterList)
	if f.Body != nil {
		w.anchor(f.Body.RightBrace)
		w.push(true)
		w.stmts(f.Body.List, true)
		w.pop()
	}
	w.pop()
}

func (w *plainWalker) params(p *ast.ParameterList) {
	if p == nil {
		return
	}
	for _, b := range p.List {
		w.target(b.Target, w.cur)
		w.expr(b.Initializer)
	}
	w.target(p.Rest, w.cur)
}

// class walks a class; an expression's name is bound in the class's own
// scope, a declaration's where it is declared.
func (w *plainWalker) class(c *ast.ClassLiteral, expression bool) {
	w.expr(c.SuperClass)
	w.push(false)
	if expression && c.Name != nil {
		w.declare(c.Name.Name.String(), w.cur)
	}
	w.anchor(c.RightBrace)
	for _, el := range c.Body {
		w.anchor(el.Idx0())
		switch el := el.(type) {
		case *ast.MethodDefinition:
			if el.Computed {
				w.expr(el.Key)
			}
			w.function(el.Body, false)
		case *ast.FieldDefinition:
			if el.Computed {
				w.expr(el.Key)
			}
			w.expr(el.Initializer)
		case *ast.ClassStaticBlock:
			if el.Block != nil {
				w.push(true)
				w.stmts(el.Block.List, true)
				w.pop()
			}
		default:
			w.notPlain = true
		}
	}
	w.pop()
}

// logical reports whether e is an && or || expression.
func logical(e ast.Expression) bool {
	b, ok := e.(*ast.BinaryExpression)
	return ok && (b.Operator == token.LOGICAL_AND || b.Operator == token.LOGICAL_OR)
}
