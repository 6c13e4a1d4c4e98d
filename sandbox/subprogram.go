package sandbox

// Sub-programs: code the host keeps under a name (such as a saved
// function) that a script calls like a host function, and that runs
// inside the current execution: in the same runtime, with the same
// limits, and with each host call it makes going to the same Host.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
)

// MaxSubprogramDepth bounds how deeply sub-programs may call each other:
// a call made at this depth is refused with a RangeError.
const MaxSubprogramDepth = 8

// Subprogram is what a [SubprogramHost] answers for one call of a
// sub-program.
type Subprogram struct {
	// Key identifies Code: a key always names the same code (a name and
	// its version). The sandbox caches the compiled code by it.
	Key string `json:"key"`
	// Label names the sub-program in its errors and in
	// CallPosition.From of the host calls it makes, such as
	// "saved.weeklyReview version 3".
	Label string `json:"label"`
	// Code is the body of an async function whose one parameter is
	// input, in TypeScript or JavaScript.
	Code string `json:"code,omitempty"`
	// Input is the argument, as the host checked it.
	Input json.RawMessage `json:"input,omitempty"`
	// Result, when set, is the call's whole answer and Code does not run:
	// a dry run (_validateOnly).
	Result json.RawMessage `json:"result,omitempty"`
}

// SubprogramHost is a Host some of whose namespaces hold sub-programs. A
// call of one, ns.fn(arg):
//   - asks Subprogram while the script waits, without counting a host
//     call, and rejects with its error (like a host call's error);
//   - compiles Code once per Key, as the body of
//     async function (input) {…}, in which ns is the same namespace one
//     level deeper (MaxSubprogramDepth);
//   - runs it in the script's runtime: time, host calls, memory and
//     output are the script's. Each host call it makes reaches Call with
//     CallPosition.From set to Label;
//   - rejects with an error whose message starts with Label and the line
//     and column in Code, when the code fails.
type SubprogramHost interface {
	Host
	// SubprogramNamespaces lists the namespaces of Functions whose
	// functions are sub-programs.
	SubprogramNamespaces() []string
	// Subprogram checks the arguments of name ("ns.fn") and returns what
	// to run. It must answer quickly.
	Subprogram(ctx context.Context, name string, args json.RawMessage) (*Subprogram, error)
}

// subprogramPrefix starts the name of a relayed Subprogram question.
const subprogramPrefix = "\x00sub."

// subprogramCall answers a relayed Subprogram question from host and
// reports whether name was one.
func subprogramCall(ctx context.Context, host Host, name string, args []byte) (json.RawMessage, bool, error) {
	fn, ok := strings.CutPrefix(name, subprogramPrefix)
	if !ok {
		return nil, false, nil
	}
	sh, ok := host.(SubprogramHost)
	if !ok {
		return nil, true, fmt.Errorf("%s is not a function", fn)
	}
	sp, err := askSubprogram(ctx, sh, fn, args)
	if err != nil {
		return nil, true, err
	}
	b, err := json.Marshal(sp)
	return b, true, err
}

// askSubprogram calls sh.Subprogram, turning a panic into an error.
func askSubprogram(ctx context.Context, sh SubprogramHost, name string, args []byte) (sp *Subprogram, err error) {
	defer func() {
		if r := recover(); r != nil {
			sp, err = nil, fmt.Errorf("%s failed inside the host", name)
		}
	}()
	sp, err = sh.Subprogram(ctx, name, args)
	if err == nil && sp == nil {
		err = fmt.Errorf("%s is not a function", name)
	}
	return sp, err
}

// SubprogramNamespaces implements SubprogramHost with the parent's list.
func (h *relayHost) SubprogramNamespaces() []string { return h.sub }

// Subprogram implements SubprogramHost by asking the parent.
func (h *relayHost) Subprogram(ctx context.Context, name string, args json.RawMessage) (*Subprogram, error) {
	out, err := h.Call(ctx, subprogramPrefix+name, args)
	if err != nil {
		return nil, err
	}
	var sp Subprogram
	if err := json.Unmarshal(out, &sp); err != nil {
		return nil, err
	}
	return &sp, nil
}

// subFile is the file name of a sub-program's frames.
func subFile(key string) string { return "sub:" + key }

// subWrap turns the code of a sub-program of namespace ns into a program
// whose value is the function. The code starts on line 2. What it
// returns goes through __codemode_done, which keeps it as a result for
// the caller's errors (see keepSubResult); its errors through
// __codemode_where.
func subWrap(ns, code string) string {
	return "return async (input, " + ns + ", __codemode_where, __codemode_done) => __codemode_done(await (async () => { try {\n" + code + "\n} catch (err) { throw __codemode_where(err) } })())"
}

// subState is an execution's sub-programs: compiled functions by key,
// labels by file name, namespace objects by depth.
type subState struct {
	fns    map[string]goja.Callable
	progs  map[string]*compiled
	labels map[string]string
	nsObjs map[string][]goja.Value
}

// subNamespace returns namespace ns as seen at depth (0: the script's).
func (e *execution) subNamespace(ns string, depth int) (goja.Value, error) {
	if depth == 0 {
		e.captureOwnProp(ns) // before the script runs
	}
	if objs := e.sub.nsObjs[ns]; depth < len(objs) && objs[depth] != nil {
		return objs[depth], nil
	}
	v, err := e.namespaceObject(ns, e.host.Functions()[ns], func(name string) func(goja.FunctionCall) goja.Value {
		return e.subFunc(ns, name, depth)
	})
	if err != nil {
		return nil, err
	}
	if e.sub.nsObjs == nil {
		e.sub.nsObjs = map[string][]goja.Value{}
	}
	objs := e.sub.nsObjs[ns]
	for len(objs) <= depth {
		objs = append(objs, nil)
	}
	objs[depth] = v
	e.sub.nsObjs[ns] = objs
	return v, nil
}

// subFunc returns the native function bound as name ("ns.fn") at depth.
func (e *execution) subFunc(ns, name string, depth int) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		vm := e.vm
		if len(call.Arguments) > 1 {
			e.throwTypeError("%s", e.positional(name, len(call.Arguments)))
		}
		promise, resolve, reject := vm.NewPromise()
		settle := func(f func(any) error, v any) goja.Value {
			if err := f(v); err != nil {
				panic(err)
			}
			return vm.ToValue(promise)
		}
		if depth >= MaxSubprogramDepth {
			return settle(reject, e.newJSError(e.rangeErrCtor, fmt.Sprintf(
				"%s was called %d sub-programs deep, the most allowed: a saved function that calls itself, or calls one that calls it back, must stop earlier", name, depth)))
		}
		args := json.RawMessage("{}")
		if a := call.Argument(0); !goja.IsUndefined(a) {
			s, err := e.stringify(goja.Undefined(), a)
			if err != nil {
				panic(err)
			}
			if goja.IsUndefined(s) {
				e.throwTypeError("%s takes an object argument; a %s cannot be sent", name, kindOf(a))
			}
			args = json.RawMessage(s.String())
		}
		if len(args) > maxCallArgsBytes {
			return settle(reject, e.newJSError(e.errorCtor, callArgsTooLarge(name, len(args))))
		}
		var frame *goja.StackFrame // the caller's, for its result's origin
		if f, ok := e.innerFrame(); ok {
			frame = &f
		}
		sh, _ := e.host.(SubprogramHost)
		if sh == nil {
			return settle(reject, e.newJSError(e.errorCtor, name+" is not a function"))
		}
		sp, err := askSubprogram(e.callCtx, sh, name, args)
		if e.log != nil {
			e.log.subs = append(e.log.subs, loggedSub{name: name, args: args, sp: sp, err: err})
		}
		if err != nil {
			return settle(reject, e.hostError(err))
		}
		if sp.Result != nil {
			v, err := e.parseResult(sp.Result)
			if err != nil {
				return settle(reject, e.newJSError(e.errorCtor, err.Error()))
			}
			return settle(resolve, v) // a dry run's answer, not the declared result: not kept
		}
		fn, c, err := e.subProgram(ns, sp)
		if err != nil {
			return settle(reject, e.newJSError(e.errorCtor, err.Error()))
		}
		input := goja.Value(vm.NewObject())
		if len(sp.Input) > 0 {
			if input, err = e.parseJSON(sp.Input); err != nil {
				return settle(reject, e.newJSError(e.errorCtor, err.Error()))
			}
		}
		inner, err := e.subNamespace(ns, depth+1)
		if err != nil {
			panic(err)
		}
		where := vm.ToValue(func(c2 goja.FunctionCall) goja.Value { return e.subWhere(sp, c, c2.Argument(0)) })
		done := vm.ToValue(func(c2 goja.FunctionCall) goja.Value {
			v := c2.Argument(0)
			e.keepSubResult(v, name, frame)
			return v
		})
		v, err := fn(goja.Undefined(), input, inner, where, done)
		if err != nil {
			var ex *goja.Exception
			if errors.As(err, &ex) {
				return settle(reject, ex.Value())
			}
			panic(err)
		}
		return v
	}
}

// subProgram returns the function of sp, compiling its code on first use
// (the compiled code is cached across executions by sp.Key).
func (e *execution) subProgram(ns string, sp *Subprogram) (goja.Callable, *compiled, error) {
	if fn, ok := e.sub.fns[sp.Key]; ok {
		return fn, e.sub.progs[sp.Key], nil
	}
	ts := subWrap(ns, sp.Code)
	file := subFile(sp.Key)
	c, err := compile(source{key: sourceKey("\x00sub\x00"+sp.Key, ts), ts: ts, file: file}, e.lim.MaxCodeBytes+len(ts)-len(sp.Code))
	if err == nil {
		err = c.subShape()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s does not compile: %v", sp.Label, err)
	}
	v, err := e.vm.RunProgram(c.program)
	if err != nil {
		return nil, nil, fmt.Errorf("%s could not start: %v", sp.Label, err)
	}
	p, ok := v.Export().(*goja.Promise)
	if !ok || p.State() != goja.PromiseStateFulfilled {
		return nil, nil, fmt.Errorf("%s could not start", sp.Label)
	}
	fn, ok := goja.AssertFunction(p.Result())
	if !ok {
		return nil, nil, fmt.Errorf("%s could not start", sp.Label)
	}
	if e.sub.fns == nil {
		e.sub.fns, e.sub.progs, e.sub.labels = map[string]goja.Callable{}, map[string]*compiled{}, map[string]string{}
	}
	e.sub.fns[sp.Key], e.sub.progs[sp.Key], e.sub.labels[file] = fn, c, sp.Label
	return fn, c, nil
}

// subFramePos finds "sub:KEY:LINE:COL" in a stack line.
var subFramePos = regexp.MustCompile(`sub:([^\s():]*):(\d+):(\d+)`)

// subWhere puts the label of sp and the position in its code where err
// happened at the front of err's message, and returns err.
func (e *execution) subWhere(sp *Subprogram, c *compiled, err goja.Value) goja.Value {
	o, ok := err.(*goja.Object)
	if !ok {
		return err
	}
	where := sp.Label
	line, own := 0, false // own: the error was thrown in this code, not in one it called
	stack := o.Get("stack")
	if stack != nil && !goja.IsUndefined(stack) {
		for i, m := range subFramePos.FindAllStringSubmatch(stack.String(), -1) {
			if m[1] != sp.Key {
				continue
			}
			l, _ := strconv.Atoi(m[2])
			col, _ := strconv.Atoi(m[3])
			if ol, oc, ok := c.original(l, col); ok && ol > 1 {
				line, own = ol-1, i == 0
				where += ", line " + strconv.Itoa(line) + " column " + strconv.Itoa(oc)
			}
			break
		}
	}
	msg := o.Get("message")
	if msg == nil || goja.IsUndefined(msg) {
		return err
	}
	text := msg.String()
	if own && valueString(o.Get("name")) == "TypeError" {
		// A misread result, as in the script (see explainOrigin).
		text = e.explainIn(codeView{c: c, file: subFile(sp.Key), shift: 1}, text, line)
		e.wantOrigins()
	}
	_ = o.Set("message", "in "+where+": "+text)
	return err
}

// callerSub returns the label of the sub-program whose code is running
// (the innermost frame of the current stack) and that frame as a stack
// line, or "" and "".
func (e *execution) callerSub() (label, site string) {
	if len(e.sub.labels) == 0 {
		return "", ""
	}
	for _, f := range e.vm.CaptureCallStack(4, nil) {
		n := f.SrcName()
		if n == sourceName {
			return "", ""
		}
		if label, ok := e.sub.labels[n]; ok {
			p := f.Position()
			return label, "    at " + n + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column) + "\n"
		}
	}
	return "", ""
}

// CompileSubprogram compiles code as a call of a sub-program of
// namespace ns with key would, and caches it in this process under key.
// Its error is a SYNTAX or CODE_TOO_LARGE *Error; a SYNTAX error's Line
// and Column are in code. Like any compilation its cost may grow faster
// than code's size: call it where a deadline can abandon it.
func CompileSubprogram(ns, key, code string, maxCodeBytes int) error {
	if maxCodeBytes <= 0 {
		maxCodeBytes = DefaultMaxCodeBytes
	}
	if err := codeTooLarge(code, maxCodeBytes); err != nil {
		return err
	}
	ts := subWrap(ns, code)
	c, err := compile(source{key: sourceKey("\x00sub\x00"+key, ts), ts: ts, file: subFile(key)}, maxCodeBytes+len(ts)-len(code))
	if err == nil {
		err = c.subShape()
	}
	var se *Error
	if errors.As(err, &se) && se.Line > 0 {
		lines := strings.Split(code, "\n")
		switch {
		case se.Line == 1:
			se.Line, se.Column = 1, 1
		case se.Line-1 > len(lines): // in the wrapper's end: past the last line
			se.Line, se.Column = len(lines), len(lines[len(lines)-1])+1
		default:
			se.Line--
		}
		se.Source = strings.TrimRight(lines[se.Line-1], "\r")
	}
	return err
}

// subShape checks that a compiled sub-program is the one function subWrap
// makes: code that closed its braces early would run outside the
// function, its error annotation and its nesting bound. The check parses
// the program once per compilation.
func (c *compiled) subShape() error {
	c.shapeOnce.Do(func() {
		c.shapeErr = &Error{Kind: KindSyntax, Message: "the code closes more braces than it opens: it must be the body of one function"}
		prog, err := parser.ParseFile(nil, "", c.js, 0, parser.WithDisableSourceMaps)
		if err != nil {
			return
		}
		for _, st := range prog.Body {
			es, ok := st.(*ast.ExpressionStatement)
			if !ok {
				continue // esbuild's helpers
			}
			call, ok := es.Expression.(*ast.CallExpression)
			if !ok {
				continue
			}
			outer, ok := call.Callee.(*ast.ArrowFunctionLiteral)
			if !ok {
				return
			}
			body, ok := outer.Body.(*ast.BlockStatement)
			if !ok || len(body.List) != 1 {
				return
			}
			ret, ok := body.List[0].(*ast.ReturnStatement)
			if !ok {
				return
			}
			sub, ok := ret.Argument.(*ast.ArrowFunctionLiteral)
			if !ok {
				return
			}
			if body := subBody(sub); body != nil && len(body.List) == 1 {
				if _, ok := body.List[0].(*ast.TryStatement); ok {
					c.shapeErr = nil
				}
			}
			return
		}
	})
	return c.shapeErr
}

// subBody returns the block of the function subWrap makes, sub:
// __codemode_done(await (async () => { BLOCK })()), or nil when sub is
// not that.
func subBody(sub *ast.ArrowFunctionLiteral) *ast.BlockStatement {
	eb, ok := sub.Body.(*ast.ExpressionBody)
	if !ok {
		return nil
	}
	done, ok := eb.Expression.(*ast.CallExpression)
	if !ok || len(done.ArgumentList) != 1 {
		return nil
	}
	if id, ok := done.Callee.(*ast.Identifier); !ok || id.Name != "__codemode_done" {
		return nil
	}
	aw, ok := done.ArgumentList[0].(*ast.AwaitExpression)
	if !ok {
		return nil
	}
	call, ok := aw.Argument.(*ast.CallExpression)
	if !ok || len(call.ArgumentList) != 0 {
		return nil
	}
	inner, ok := call.Callee.(*ast.ArrowFunctionLiteral)
	if !ok {
		return nil
	}
	body, _ := inner.Body.(*ast.BlockStatement)
	return body
}
