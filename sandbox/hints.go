package sandbox

// Hints for a ReferenceError: what the sandbox offers instead of a Node or
// browser global, or the host namespace a name is close to.

import (
	"sort"
	"strings"

	"github.com/dop251/goja"
)

// missingGlobals says, for Node and browser globals the sandbox does not
// have, what it offers instead and why.
var missingGlobals = func() map[string]string {
	timers := "the sandbox has no timers: a run is capped at {limit} and only waits for host calls, so there is nothing to wait for between them. Await host calls directly, or run several together with await Promise.all([...])"
	modules := "the sandbox has no modules and nothing to install: data comes from the host's functions{ns}, and everything else from the standard JavaScript built-ins (Array, Math, JSON, Date, Map, …)"
	network := "the sandbox has no network access: data comes only from the host's functions{ns}"
	browser := "the sandbox is not a browser: there is no page, window or DOM, only the host's functions and the standard JavaScript built-ins"
	m := map[string]string{
		"Buffer":  "the sandbox is not Node.js and has no Buffer: host functions send and return JSON, so work with strings, arrays and numbers (Uint8Array exists for bytes)",
		"process": "the sandbox is not Node.js and has no process: there are no environment variables, files or arguments, and a script ends by returning a value. Data comes from the host's functions{ns}",
		"global":  "the sandbox is not Node.js: use globalThis",
	}
	for _, n := range []string{"setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "clearImmediate", "queueMicrotask", "requestAnimationFrame"} {
		m[n] = timers
	}
	for _, n := range []string{"require", "module", "exports", "__dirname", "__filename"} {
		m[n] = modules
	}
	for _, n := range []string{"fetch", "XMLHttpRequest", "WebSocket", "Request", "Response", "Headers"} {
		m[n] = network
	}
	for _, n := range []string{"window", "document", "navigator", "localStorage", "sessionStorage", "location", "alert"} {
		m[n] = browser
	}
	return m
}()

// namespaceHint explains "ReferenceError: X is not defined": what the
// sandbox offers instead of a Node or browser global, or the namespace X
// is close to.
func (e *execution) namespaceHint(o *goja.Object) string {
	if valueString(o.Get("name")) != "ReferenceError" {
		return ""
	}
	name, ok := strings.CutSuffix(valueString(o.Get("message")), " is not defined")
	if !ok {
		return ""
	}
	spaces := e.dataNamespaces()
	if why, known := missingGlobals[name]; known {
		where := ""
		if len(spaces) > 0 {
			where = ", on " + strings.Join(spaces, " and ") + " (const rows = await " + spaces[0] + ".someFunction({ … }))"
		}
		return ": " + strings.NewReplacer("{limit}", e.lim.Timeout.String(), "{ns}", where).Replace(why) + "."
	}
	var all []string
	for ns := range e.host.Functions() {
		all = append(all, ns)
	}
	if len(all) == 0 {
		return ""
	}
	sort.Strings(all)
	if h := suggest(name, all); strings.HasPrefix(h, "Did you mean") {
		return ". " + h
	}
	return ". Host functions are in: " + strings.Join(all, ", ") + "."
}

// dataNamespaces lists, sorted, the host's namespaces whose functions are
// not free (FreeHost): where a script's data comes from. When every
// namespace is free it lists them all.
func (e *execution) dataNamespaces() []string {
	free := freeNamespaces(e.host)
	var data, all []string
	for ns := range e.host.Functions() {
		all = append(all, ns)
		if !free[ns] {
			data = append(data, ns)
		}
	}
	if len(data) == 0 {
		data = all
	}
	sort.Strings(data)
	return data
}
