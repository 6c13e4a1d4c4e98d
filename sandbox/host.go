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
