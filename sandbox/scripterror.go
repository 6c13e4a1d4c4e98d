package sandbox

// Errors in the script: raising them from native functions, and converting
// what the runtime failed with into an *Error.

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/dop251/goja"
)

// newJSError constructs an Error (or TypeError) with the original
// constructor, which the script may since have replaced.
func (e *execution) newJSError(ctor *goja.Object, message string) *goja.Object {
	o, err := e.vm.New(ctor, e.vm.ToValue(message))
	if err != nil {
		panic(err)
	}
	return o
}

// throwTypeError raises a TypeError in the script from a native function.
func (e *execution) throwTypeError(format string, args ...any) {
	e.throwError(e.typeErrCtor, format, args...)
}

// throwError raises an error made with ctor in the script from a native
// function.
func (e *execution) throwError(ctor *goja.Object, format string, args ...any) {
	panic(e.newJSError(ctor, fmt.Sprintf(format, args...)))
}

// scriptError converts an error from the runtime into an *Error.
func (e *execution) scriptError(err error) *Error {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if se, ok := ie.Value().(*Error); ok {
			return e.failure(se)
		}
		return e.failure(internalError(fmt.Sprint(ie.Value())))
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		// Stack depth is memory: deep recursion through native callbacks
		// ([1].map(f)) would otherwise exhaust the Go stack.
		out := &Error{Kind: KindMemoryLimit, Message: fmt.Sprintf(
			"maximum call stack size exceeded (%d nested calls). Use a loop or an explicit stack instead of deep recursion.", maxCallStackSize)}
		e.prog.setPosition(out, so.Stack())
		return e.failure(out)
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		out := e.rejection(ex.Value())
		if out.Line == 0 {
			e.prog.setPosition(out, ex.Stack())
		}
		return out
	}
	return e.failure(internalError(err.Error()))
}

// internalError is the model-safe error for a runtime failure the sandbox
// did not expect: Go error text can name files, addresses or internals and
// tells the model nothing it can act on, so the detail goes to the log
// under a reference that the message repeats. runScript has no logger of its
// own, hence slog.Default: the host's in process, the worker's stderr in a
// worker process.
func internalError(detail string) *Error {
	ref := strings.ToLower(rand.Text()[:10])
	slog.Default().Error("sandbox: internal error", "ref", ref, "detail", detail)
	return &Error{Kind: KindInternal, Message: "the sandbox failed internally (ref " + ref + "); the script may be fine, try again"}
}

// rejection converts the reason the script failed with into an *Error.
func (e *execution) rejection(reason goja.Value) *Error {
	out := &Error{Kind: KindRuntime}
	obj, isObj := reason.(*goja.Object)
	if isObj && obj.ClassName() == "Error" {
		out.Message = errorMessage(obj) + e.namespaceHint(obj)
		if st := obj.Get("stack"); st != nil && !goja.IsUndefined(st) {
			out.Stack = e.prog.cleanStack(st.String())
			out.Line, out.Column = firstPosition(out.Stack)
		}
		if valueString(obj.Get("name")) == "TypeError" {
			out.Message = e.explainOrigin(out.Message, out.Line)
			e.wantOrigins()
		}
		out.Data = e.errorData(obj)
		if e.callLimit && valueString(obj.Get("code")) == string(KindCallLimit) {
			out.Kind = KindCallLimit
			out.Message = valueString(obj.Get("message"))
		}
	} else {
		out.Message = "Uncaught " + e.formatValue(reason)
	}
	return e.failure(out)
}

// errorData returns the own properties of an Error other than message and
// stack as a JSON object, or nil.
func (e *execution) errorData(o *goja.Object) json.RawMessage {
	extra := e.vm.NewObject()
	n := 0
	for _, k := range o.Keys() {
		if k != "message" && k != "stack" {
			_ = extra.Set(k, o.Get(k))
			n++
		}
	}
	if n == 0 {
		return nil
	}
	s, err := e.stringify(goja.Undefined(), extra, e.jsonReplacer())
	if err != nil || goja.IsUndefined(s) {
		return nil
	}
	return json.RawMessage(s.String())
}

// formatValue renders a value like console.log does, for error messages.
func (e *execution) formatValue(v goja.Value) (s string) {
	defer func() {
		if recover() != nil {
			s = "(unprintable value)"
		}
	}()
	return e.formatArg(v)
}

// errorMessage is "Name: message" for an Error object, else the value as a
// string.
func errorMessage(v goja.Value) string {
	if o, ok := v.(*goja.Object); ok && o.ClassName() == "Error" {
		if n := valueString(o.Get("name")); n != "" {
			return n + ": " + valueString(o.Get("message"))
		}
		return valueString(o.Get("message"))
	}
	return valueString(v)
}

func valueString(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return ""
	}
	return v.String()
}
