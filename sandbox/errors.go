package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Kind classifies an [*Error] so callers can switch on it.
type Kind string

// The kinds of [*Error].
const (
	// KindSyntax: the TypeScript did not parse or transpile.
	KindSyntax Kind = "SYNTAX"
	// KindRuntime: the script threw, or its return value could not be
	// converted to JSON.
	KindRuntime Kind = "RUNTIME"
	// KindTimeout: the execution ran past its timeout.
	KindTimeout Kind = "TIMEOUT"
	// KindMemoryLimit: the execution used more memory than allowed, or
	// nested calls deeper than the call-stack limit (1000).
	KindMemoryLimit Kind = "MEMORY_LIMIT"
	// KindCallLimit: the script made more host calls than allowed.
	KindCallLimit Kind = "CALL_LIMIT"
	// KindCodeTooLarge: the source was over the size limit; nothing ran.
	KindCodeTooLarge Kind = "CODE_TOO_LARGE"
	// KindCancelled: the caller's context ended before the script did.
	KindCancelled Kind = "CANCELLED"
	// KindBusy: every worker was busy and the caller already had as many
	// executions waiting as it may; nothing ran. Retry once some finish.
	KindBusy Kind = "BUSY"
	// KindInternal: the sandbox itself failed; the script may be fine.
	KindInternal Kind = "INTERNAL"
)

// ErrClosed is returned by Run after Close.
var ErrClosed = errors.New("sandbox: closed")

// Error is the error every failed execution returns. Message is written for
// the model: what went wrong and what to do instead. Line and Column are
// 1-based positions in the submitted TypeScript, zero when unknown.
type Error struct {
	Kind    Kind   `json:"kind"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	// Source is the offending line of TypeScript, for syntax errors.
	Source string `json:"source,omitempty"`
	// Stack is the JavaScript stack in TypeScript coordinates
	// ("at f (agent.ts:7:3)"), for runtime errors.
	Stack string `json:"stack,omitempty"`
	// CallsUsed is the number of host calls made before the error.
	CallsUsed int `json:"callsUsed,omitempty"`
	// Data holds the other own properties of an uncaught Error as a JSON
	// object, such as the issues of a host validation error; nil if none.
	Data json.RawMessage `json:"data,omitempty"`
}

// Error formats the kind, the position when known, and the message.
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s at agent.ts:%d:%d: %s", e.Kind, e.Line, e.Column, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Kind, e.Message)
}

// Is reports whether target is an *Error of the same Kind, so
// errors.Is(err, &sandbox.Error{Kind: sandbox.KindTimeout}) works. A nil
// *Error (held in an error interface) matches nothing, and neither does a
// nil *Error target.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && e != nil && t != nil && t.Kind == e.Kind
}

func newError(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}
