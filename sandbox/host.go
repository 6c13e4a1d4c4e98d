package sandbox

import (
	"context"
	"encoding/json"
	"strings"
)

// Host is what a script can call. The sandbox binds each listed function as
// namespace.function returning a Promise.
//
// A Call error rejects the script's promise with a JavaScript Error whose
// message is err.Error(). If err also implements json.Marshaler and
// marshals to an object, that object's properties other than "message" and
// "stack" are copied onto the Error, so a validation error's issues are
// visible to the script as err.issues. An error marked with
// [MarkOutcomeUnknown] records the call as [OutcomeUnknown]: use it when
// the work was sent on and its answer lost, so that no report says a
// write that may have happened did not.
type Host interface {
	// Functions lists what to bind: namespace → function names.
	Functions() map[string][]string
	// Call runs one function; name is "namespace.function". Call must be
	// safe for concurrent use: a script's calls run concurrently.
	Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)
}

// FreeHost is a Host some of whose namespaces hold free functions: quick
// lookups, such as a catalog describing itself, that a script may use
// without spending its host calls. A call to a free function
//   - passes all its arguments to Call as one JSON array;
//   - runs while the script waits, so it must answer quickly;
//   - returns an already settled Promise;
//   - does not count against Limits.MaxCalls and is not listed in
//     Result.Calls.
type FreeHost interface {
	Host
	// FreeNamespaces lists the namespaces of Functions whose functions
	// are free.
	FreeNamespaces() []string
}

// freeNamespaces returns the free namespaces of h.
func freeNamespaces(h Host) map[string]bool {
	fh, ok := h.(FreeHost)
	if !ok {
		return nil
	}
	m := map[string]bool{}
	for _, ns := range fh.FreeNamespaces() {
		m[ns] = true
	}
	return m
}

// Explainer is a Host that helps the sandbox word its errors about the
// functions it binds with what only the host knows. The sandbox asks it
// while the script waits, without spending the script's host calls; in
// worker mode the question travels to the parent like a free call. Both
// methods must answer quickly and must not fail; "" means nothing to add.
type Explainer interface {
	Host
	// Suggest returns what follows "ns.fn is not a function." when a
	// script uses name ("ns.fn"), which no namespace holds: typically the
	// closest functions by the host's own search, and how to find others.
	Suggest(name string) string
	// Shape returns the argument object function name ("ns.fn") takes,
	// written as TypeScript with optional members marked:
	// "{ trackName: string; limit?: number }".
	Shape(name string) string
}

// ResultDescriber is a Host that declares what its functions return, so
// that an error on a value a call returned can name the call and the
// result's declared shape with the fix: "text is the result of
// files.read_text_file (line 3), declared `{ content: string }`, an
// object with member content, which has no member split: use
// text.content". The sandbox asks only when a script fails on such a
// value, without spending the script's host calls; in worker mode the
// question travels to the parent like a free call. ResultShape must
// answer quickly and must not fail; "" means nothing is declared.
type ResultDescriber interface {
	Host
	// ResultShape returns the declared result of name ("ns.fn"), free
	// functions included, as TypeScript on one line: "{ content: string }",
	// "string", "{ name: string; tier: string }[]".
	ResultShape(name string) string
}

// Withholder is a Host that has more functions than it binds for this
// execution, such as codemode's execute_readonly_code, which binds only
// the READ-ONLY ones. When a script uses a name no namespace binds, the
// sandbox asks it first, before guessing what was meant: a non-empty
// answer is the whole message of the TypeError (why the function is not
// available here and where it is), in place of "ns.fn is not a
// function." and any suggestion. Like Explainer's methods it must answer
// quickly and must not fail; "" means the host does not have the function
// either.
type Withholder interface {
	Host
	// Withheld explains name ("ns.fn"), which this execution does not
	// bind, if the host has it.
	Withheld(name string) string
}

// explainPrefix starts the name of a relayed question to an Explainer or
// a Withholder: no function name starts with a NUL byte.
const explainPrefix = "\x00explain."

// explainCall answers a relayed question (explainPrefix + "suggest" or
// "shape" for an Explainer, "withheld" for a Withholder, "result" for a
// ResultDescriber, args a JSON
// string naming the function) from host, and reports whether name was
// such a question.
func explainCall(host Host, name string, args []byte) (json.RawMessage, bool) {
	q, ok := strings.CutPrefix(name, explainPrefix)
	if !ok {
		return nil, false
	}
	var fn string
	if json.Unmarshal(args, &fn) != nil {
		return json.RawMessage(`""`), true
	}
	var s string
	func() {
		defer func() { _ = recover() }()
		x, isExplainer := host.(Explainer)
		w, isWithholder := host.(Withholder)
		rd, isDescriber := host.(ResultDescriber)
		switch {
		case q == "result" && isDescriber:
			s = rd.ResultShape(fn)
		case q == "suggest" && isExplainer:
			s = x.Suggest(fn)
		case q == "shape" && isExplainer:
			s = x.Shape(fn)
		case q == "withheld" && isWithholder:
			s = w.Withheld(fn)
		}
	}()
	b, _ := json.Marshal(cut(s, maxWarningBytes*2))
	return b, true
}

// explain asks the execution's host question ("suggest" or "shape" of an
// Explainer, "withheld" of a Withholder, "result" of a ResultDescriber)
// about fn, relayed to the parent in worker mode; "" when it has nothing
// to say. The worker does not know whether the parent's host is a
// ResultDescriber, so "result" is always relayed: it is asked only when a
// script has failed.
func (e *execution) explain(question, fn string) string {
	key := question + " " + fn
	if s, ok := e.explained[key]; ok {
		return s
	}
	var s string
	switch h := unwrapReplay(e.host).(type) {
	case *relayHost:
		if question == "result" || question == "withheld" && h.withhold || question != "withheld" && h.explain {
			args, _ := json.Marshal(fn)
			if out, err := h.Call(e.callCtx, explainPrefix+question, args); err == nil {
				_ = json.Unmarshal(out, &s)
			}
		}
	default:
		out, _ := explainCall(h, explainPrefix+question, mustJSON(fn))
		_ = json.Unmarshal(out, &s)
	}
	if e.explained == nil {
		e.explained = map[string]string{}
	}
	if len(e.explained) < 64 {
		e.explained[key] = s
	}
	return s
}
