package sandbox

// plainWalker's expressions, functions and classes (fastpath_walk.go).

import (
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
)

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
		if x.Name == "undefined" {
			// esbuild prints it as void 0 with no mapping, so an error
			// there has a coarser position on its path than the direct
			// one would: take its path, so that positions stay the same.
			w.notPlain = true
			return
		}
		w.anchor(e.Idx0())
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
		if e.Tag != nil {
			// A tagged template (often made by ASI: a template at the
			// start of a line tags the call above) maps its errors
			// elsewhere on esbuild's path: let esbuild decide.
			w.notPlain = true
			return
		}
		for _, x := range e.Expressions {
			if stringy(x) || isLiteral(x) {
				// esbuild inlines a literal or template into the
				// template around it, which moves positions after it.
				w.notPlain = true
			}
		}
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
		if relational(e.Operator) {
			if l, ok := e.Left.(*ast.BinaryExpression); ok && relational(l.Operator) {
				// esbuild prints (a in b) < c without the parentheses,
				// which goja then reads as a in (b < c) (and likewise
				// for other relational chains): take esbuild's path so
				// both paths read it alike.
				w.notPlain = true
			}
		}
		if e.Operator == token.PLUS && stringy(e.Right) {
			// esbuild folds "a" + `b${c}` and (x + "a") + "b" into one
			// string or template, which moves positions after it.
			if l, ok := e.Left.(*ast.BinaryExpression); stringy(e.Left) || ok && l.Operator == token.PLUS && stringy(l.Right) {
				w.notPlain = true
			}
		}
		switch e.Operator {
		case token.LOGICAL_OR, token.LOGICAL_AND:
			// esbuild folds a || b and a && b when it knows whether a
			// is truthy (null || x prints x), and the error of what is
			// left then has another position.
			if w.knownTruth(e.Left) {
				w.notPlain = true
			}
		case token.COALESCE:
			// a ?? b likewise, and esbuild knows far more values are
			// not nullish (any operator's result): only an operand it
			// cannot know passes.
			w.opaqueOperand(e.Left)
		}
		if e.Operator == token.INSTANCEOF {
			// esbuild folds or rewrites x instanceof y when it knows
			// either side's value (a literal, an operator's result, a
			// const it inlines), even where JavaScript throws.
			w.opaqueOperand(e.Left)
			w.opaqueOperand(e.Right)
		}
		w.expr(e.Left)
		w.expr(e.Right)
	case *ast.UnaryExpression:
		w.expr(e.Operand)
	case *ast.ConditionalExpression:
		if w.knownTruth(e.Test) { // esbuild folds the conditional
			w.notPlain = true
		}
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
		w.annotatable(b)
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

// opaqueOperand refuses the program unless e is an instanceof operand
// whose value esbuild cannot know: a member, a call, this, an await, or an
// identifier that is not a const it inlines (checked in plain, from
// instanceofNames).
func (w *plainWalker) opaqueOperand(e ast.Expression) {
	switch x := e.(type) {
	case *ast.Identifier:
		w.instanceofNames = append(w.instanceofNames, x.Name.String())
	case *ast.DotExpression, *ast.PrivateDotExpression, *ast.BracketExpression, *ast.CallExpression,
		*ast.NewExpression, *ast.ThisExpression, *ast.AwaitExpression, *ast.Optional, *ast.OptionalChain:
	default:
		w.notPlain = true
	}
}

// relational reports whether op is <, >, <=, >=, in or instanceof.
func relational(op token.Token) bool {
	switch op {
	case token.LESS, token.GREATER, token.LESS_OR_EQUAL, token.GREATER_OR_EQUAL, token.IN, token.INSTANCEOF:
		return true
	}
	return false
}

// knownTruth reports whether esbuild may know whether e is truthy, and
// so fold a ||, && or conditional around it: a literal, an object,
// function or class expression, new, typeof or void, an operator on such
// operands. An identifier counts if a const with a possibly primitive
// value declares it (recorded, as for instanceof, and checked by plain).
//
// The answer for an operator or conditional is kept: expr asks about the
// left operand at every level of a || or && chain, which would otherwise
// walk the chain again each time.
func (w *plainWalker) knownTruth(e ast.Expression) bool {
	switch e.(type) {
	case *ast.BinaryExpression, *ast.ConditionalExpression:
		if k, ok := w.truth[e]; ok {
			return k
		}
		k := w.knownTruthOf(e)
		if w.truth == nil {
			w.truth = map[ast.Expression]bool{}
		}
		w.truth[e] = k
		return k
	}
	return w.knownTruthOf(e)
}

// knownTruthOf is knownTruth without the kept answers.
func (w *plainWalker) knownTruthOf(e ast.Expression) bool {
	switch x := e.(type) {
	case *ast.NullLiteral, *ast.BooleanLiteral, *ast.NumberLiteral, *ast.StringLiteral, *ast.TemplateLiteral,
		*ast.RegExpLiteral, *ast.ObjectLiteral, *ast.ArrayLiteral, *ast.FunctionLiteral, *ast.ArrowFunctionLiteral,
		*ast.ClassLiteral, *ast.NewExpression:
		return true
	case *ast.Identifier:
		w.instanceofNames = append(w.instanceofNames, x.Name.String())
		return false
	case *ast.UnaryExpression:
		if x.Operator == token.TYPEOF || x.Operator == token.VOID || x.Operator == token.DELETE {
			return true
		}
		return w.knownTruth(x.Operand)
	case *ast.BinaryExpression:
		l, r := w.knownTruth(x.Left), w.knownTruth(x.Right)
		if x.Operator == token.LOGICAL_OR || x.Operator == token.LOGICAL_AND || x.Operator == token.COALESCE {
			return l || r // x || 1 is truthy whatever x is
		}
		return l && r // 1 > 0, but not x > 0
	case *ast.SequenceExpression:
		return len(x.Sequence) > 0 && w.knownTruth(x.Sequence[len(x.Sequence)-1])
	case *ast.ConditionalExpression:
		return w.knownTruth(x.Consequent) || w.knownTruth(x.Alternate)
	case *ast.AssignExpression:
		return w.knownTruth(x.Right)
	}
	return false
}

// stringy reports whether e is a string literal or an untagged template.
func stringy(e ast.Expression) bool {
	switch x := e.(type) {
	case *ast.StringLiteral:
		return true
	case *ast.TemplateLiteral:
		return x.Tag == nil
	}
	return false
}

// isLiteral reports whether e is a null, boolean or number literal.
func isLiteral(e ast.Expression) bool {
	switch e.(type) {
	case *ast.NullLiteral, *ast.BooleanLiteral, *ast.NumberLiteral:
		return true
	}
	return false
}
