package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The codes a call's error carries, as the model and the audit log see
// them; [CodeOf] gives the code of any error Call returns.
const (
	CodeNotFound          = "not_found"          // [NotFound]
	CodeConflict          = "conflict"           // [Conflict]
	CodeInvalid           = "invalid"            // [Invalid]
	CodeUnauthenticated   = "unauthenticated"    // [ErrUnauthenticated]
	CodeUnknownFunction   = "unknown_function"   // [ErrUnknownFunction]
	CodeCancelled         = "cancelled"          // the call's context ended; spelled as the sandbox's CANCELLED
	CodeValidation        = "validation"         // [*ValidationError]
	CodeInsufficientScope = "insufficient_scope" // [*ScopeError]
	CodeInternal          = "internal"           // [*InternalError]
	CodeToolError         = "tool_error"         // an MCP tool's own error, its text shown as written
	CodeUpstream          = "upstream"           // an upstream MCP server failed the call: it exited, timed out, answered malformed or too much
	CodeOutcomeUnknown    = "outcome_unknown"    // a call that may write reached the service, but its answer was lost: it may have taken effect
	CodeUnknown           = "unknown"            // any other error
)

// CodeOf returns the code of err, like connect-go's CodeOf: the Code of an
// [*Error], the code each other error type of this package marshals with,
// [CodeCancelled] for a cancelled or timed-out context, [CodeUnknown] for
// anything else, and "" for nil.
func CodeOf(err error) string {
	var (
		ve *ValidationError
		se *ScopeError
		ie *InternalError
		ce *Error
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ve):
		return CodeValidation
	case errors.As(err, &se):
		return CodeInsufficientScope
	case errors.As(err, &ie):
		return CodeInternal
	case errors.As(err, &ce):
		return ce.Code
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return CodeCancelled
	}
	return CodeUnknown
}

// Error is an error whose message is safe to show the model as written.
// Handlers return it (usually through [NotFound], [Conflict] or [Invalid])
// to explain why a call could not be done. It marshals to
// {"error":"<Message>","code":"<Code>"}.
type Error struct {
	Code    string
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Is makes errors.Is(err, ErrUnauthenticated) and
// errors.Is(err, ErrUnknownFunction) match any *Error with the same code.
// A nil *Error matches nothing.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok || e == nil || (t != ErrUnauthenticated && t != ErrUnknownFunction) {
		return false
	}
	return e.Code == t.Code
}

// MarshalJSON returns the object the model sees.
func (e *Error) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Error string `json:"error"`
		Code  string `json:"code"`
	}{e.Message, e.Code})
}

// NotFound returns a model-safe error saying something does not exist.
func NotFound(format string, args ...any) error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf(format, args...)}
}

// Conflict returns a model-safe error saying the request clashes with the
// current state (a duplicate, a stale version, a locked record).
func Conflict(format string, args ...any) error {
	return &Error{Code: CodeConflict, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns a model-safe error saying the request is well formed but
// cannot be done as asked (bad state, a referenced ID the caller may not use).
func Invalid(format string, args ...any) error {
	return &Error{Code: CodeInvalid, Message: fmt.Sprintf(format, args...)}
}

var (
	// ErrUnauthenticated is returned by Call when the context carries no
	// Principal and the catalog does not allow anonymous calls.
	ErrUnauthenticated error = &Error{Code: CodeUnauthenticated, Message: "authentication required: sign in and retry"}
	// ErrUnknownFunction matches (with errors.Is) the error Call returns for
	// a name that is not registered.
	ErrUnknownFunction error = &Error{Code: CodeUnknownFunction, Message: "unknown function"}
)

// Issue is one problem with a call's arguments: where (a path of JSON
// member names and array indices; empty for the whole arguments object) and
// what is wrong.
type Issue struct {
	Path    []any  `json:"path"`
	Message string `json:"message"`
}

// ValidationError lists every problem found in a call's arguments. It
// marshals to {"error":"Validation failed","issues":[{"path":[…],"message":"…"}]}.
// Handlers and Validate hooks may return it too.
type ValidationError struct {
	Issues []Issue
}

// Error returns "Validation failed"; the details are in Issues.
func (e *ValidationError) Error() string { return "Validation failed" }

// MarshalJSON returns the object the model sees.
func (e *ValidationError) MarshalJSON() ([]byte, error) {
	issues := make([]Issue, len(e.Issues))
	for i, is := range e.Issues {
		if is.Path == nil {
			is.Path = []any{}
		}
		issues[i] = is
	}
	return json.Marshal(struct {
		Error  string  `json:"error"`
		Issues []Issue `json:"issues"`
	}{"Validation failed", issues})
}

// ScopeError says the caller lacks scopes a function requires.
type ScopeError struct {
	Function string   // qualified name, e.g. "brakinglab.createPlan"
	Missing  []string // the required scopes the caller does not hold
}

// Error names the function and the missing scopes.
func (e *ScopeError) Error() string {
	return fmt.Sprintf("%s requires scope %s, which this session was not granted; tell the user, who can grant it (by signing in again, or for a local server in its configuration)",
		e.Function, strings.Join(e.Missing, ", "))
}

// MarshalJSON returns the object the model sees.
func (e *ScopeError) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Error    string   `json:"error"`
		Code     string   `json:"code"`
		Function string   `json:"function"`
		Missing  []string `json:"missingScopes"`
	}{e.Error(), CodeInsufficientScope, e.Function, e.Missing})
}

// InternalError hides an unexpected failure from the model. Its cause is
// logged with the same Ref so an operator can find it.
type InternalError struct {
	Ref   string
	cause error
}

// Error returns "internal error (ref <Ref>)".
func (e *InternalError) Error() string { return "internal error (ref " + e.Ref + ")" }

// Unwrap returns the logged cause, for host code; it is never shown to the model.
func (e *InternalError) Unwrap() error { return e.cause }

// MarshalJSON returns the object the model sees.
func (e *InternalError) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Error string `json:"error"`
		Code  string `json:"code"`
	}{e.Error(), CodeInternal})
}
