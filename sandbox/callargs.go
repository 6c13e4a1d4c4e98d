package sandbox

// Checks and warnings on the arguments of a host call: one object, JSON that
// fits the limit, no members left undefined.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// positional explains a call with n arguments to name, which takes one
// object, showing that object (Explainer) so the fix is one step.
func (e *execution) positional(name string, n int) string {
	msg := fmt.Sprintf("%s takes one argument, an object with named members; got %d arguments.", name, n)
	if shape := e.explain("shape", name); shape != "" {
		return msg + " Call it as " + name + "(" + shape + ")."
	}
	return msg + " Pass one object: " + name + "({ name: value, … })."
}

// maxUndefinedNames bounds the members one undefined-argument warning
// names.
const maxUndefinedNames = 5

// undefinedMembers lists the top-level members of an argument object whose
// value is undefined: JSON.stringify drops them, so the host never sees
// them, which is how { cornerIndex: c.cornerIndex } with a misspelled
// source silently becomes a call without cornerIndex.
func undefinedMembers(a goja.Value) []string {
	o, ok := a.(*goja.Object)
	if !ok || o.ClassName() == "Array" {
		return nil
	}
	var names []string
	for _, k := range o.Keys() {
		if v := o.Get(k); v == nil || goja.IsUndefined(v) {
			if names = append(names, k); len(names) == maxUndefinedNames {
				break
			}
		}
	}
	return names
}

// warnUndefined tells the model which arguments of a call were undefined
// and therefore not sent.
func (e *execution) warnUndefined(name, site string, undef []string) {
	if len(e.warnings) >= maxHostWarnings {
		e.droppedWarnings++
		return
	}
	line, col := e.sitePosition(site)
	quoted := make([]string, len(undef))
	for i, u := range undef {
		quoted[i] = strconv.Quote(u)
	}
	verb, it := "was", "it"
	if len(undef) > 1 {
		verb, it = "were", "them"
	}
	list := strings.Join(quoted, ", ")
	e.wantOriginsOfResults()
	if h := e.latestMissHint(); h != "" {
		e.warnings = append(e.warnings, Warning{Kind: WarningUndefinedArgument, Function: name, Line: line, Column: col,
			Message: fmt.Sprintf("%s was called without %s: the value %s undefined, so the host never received %s. %s", name, list, verb, it, h)})
		return
	}
	e.warnings = append(e.warnings, Warning{Kind: WarningUndefinedArgument, Function: name, Line: line, Column: col,
		Message: fmt.Sprintf("%s was called without %s: the value %s undefined and JSON has no undefined, so the host never received %s. If you meant to pass a value, check the expression it comes from (a misspelled field name?); otherwise leave it out.", name, list, verb, it)})
}

// maxCallArgsBytes bounds the JSON arguments of one host call, in both
// modes. In worker mode the parent holds every call's arguments in its own
// memory, so without a bound twenty concurrent calls with a large string
// each could cost the host process hundreds of MiB.
const maxCallArgsBytes = 1 << 20

// callArgsTooLarge is the rejection of a call whose arguments are n bytes
// of JSON, over maxCallArgsBytes.
func callArgsTooLarge(name string, n int) string {
	return fmt.Sprintf("the arguments to %s are %d bytes of JSON, over the %d KiB limit for one host call: pass identifiers and filters, not bulk data", name, n, maxCallArgsBytes>>10)
}

// kindOf names the kind of a value JSON cannot hold.
func kindOf(v goja.Value) string {
	if _, ok := goja.AssertFunction(v); ok {
		return "function"
	}
	if _, ok := v.(*goja.Symbol); ok {
		return "symbol"
	}
	return "value of this kind"
}

// jsonKind names the kind of a JSON value that is not an object.
func jsonKind(v []byte) string {
	switch v[0] {
	case '"':
		return "a string"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
