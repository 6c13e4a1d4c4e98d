package sandbox

import (
	"encoding/json"
	"errors"
)

// ErrOutcomeUnknown marks a host call error that does not mean the call
// did nothing: the host sent the work on (to a database, a remote
// service) and lost the answer, so the work may have been done. The call
// is recorded as [OutcomeUnknown], never as failed or cancelled without
// effect, even when it returned after the execution's context ended.
// Mark an error with [MarkOutcomeUnknown]; errors.Is finds it in both
// sandbox modes.
var ErrOutcomeUnknown = errors.New("the call may have taken effect")

// MarkOutcomeUnknown returns err marked with [ErrOutcomeUnknown]. The
// script sees err as before: its message and, when err implements
// json.Marshaler, its properties.
func MarkOutcomeUnknown(err error) error {
	if err == nil || errors.Is(err, ErrOutcomeUnknown) {
		return err
	}
	if jm, ok := err.(json.Marshaler); ok {
		return unknownJSON{unknownOutcome{err}, jm}
	}
	return unknownOutcome{err}
}

type unknownOutcome struct{ err error }

func (u unknownOutcome) Error() string   { return u.err.Error() }
func (u unknownOutcome) Unwrap() []error { return []error{u.err, ErrOutcomeUnknown} }

type unknownJSON struct {
	unknownOutcome
	jm json.Marshaler
}

func (u unknownJSON) MarshalJSON() ([]byte, error) { return u.jm.MarshalJSON() }
