package sandbox

import (
	"context"
	"encoding/json"
)

// Host is what a script can call. The sandbox binds each listed function as
// namespace.function returning a Promise.
//
// A Call error rejects the script's promise with a JavaScript Error whose
// message is err.Error(). If err also implements json.Marshaler and
// marshals to an object, that object's properties other than "message" and
// "stack" are copied onto the Error, so a validation error's issues are
// visible to the script as err.issues.
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
