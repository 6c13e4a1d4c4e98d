package sandbox

import (
	"encoding/json"
	"time"
)

// Result is what a finished execution produced.
type Result struct {
	// Value is the script's return value as JSON; "null" when it returned
	// nothing or undefined.
	Value json.RawMessage `json:"value"`
	// Logs is the console output in order.
	Logs []LogEntry `json:"logs,omitempty"`
	// Calls lists the host calls the script made, in the order they started.
	Calls []CallRecord `json:"calls,omitempty"`
	// Duration is the wall-clock time of the execution, from the moment
	// it had a worker (or, in process, started) to its end; compiling is
	// part of it.
	Duration time.Duration `json:"duration"`
	// Compile is the part of Duration spent transpiling and compiling the
	// program (near zero on a compile-cache hit). It is measured where
	// the compilation runs: in the worker process in worker mode.
	Compile time.Duration `json:"compile,omitempty"`
	// Truncated reports that output went over MaxOutputBytes and was cut;
	// the last log entry then says so.
	Truncated bool `json:"truncated,omitempty"`
	// Warnings are problems that did not stop the execution but change
	// what its result means: host calls the script did not await,
	// arguments that were undefined and so never sent, and what host
	// functions reported with [Warn] (an ignored argument, say).
	// A caller showing the result to a model must show them too.
	Warnings []Warning `json:"warnings,omitempty"`
	// Entropy is what the script read from the clock and Math.random,
	// when RunOptions.Entropy asked for it; nil otherwise.
	Entropy *Entropy `json:"entropy,omitempty"`
}

// Warning kinds in [Warning].
const (
	// WarningUnawaited: a host call was still in flight when the script's
	// main function settled (or started after it). The execution waited
	// for it; Outcome is what the host returned.
	WarningUnawaited = "UNAWAITED_CALL"
	// WarningHost: the host function reported a warning with [Warn].
	WarningHost = "HOST"
	// WarningUndefinedArgument: a member of a call's argument object was
	// undefined, so it was not sent ({ cornerIndex: c.cornerIdx }).
	WarningUndefinedArgument = "UNDEFINED_ARGUMENT"
	// WarningValue: the return value held something JSON cannot hold (a
	// Map, a Set, a function, undefined in an array, NaN or Infinity),
	// which became {} or null or was dropped. Message names the path
	// and the fix; Line and Column are zero.
	WarningValue = "VALUE"
)

// Warning is one problem reported alongside a result.
type Warning struct {
	// Kind is WarningUnawaited, WarningHost, WarningUndefinedArgument or
	// WarningValue.
	Kind string `json:"kind"`
	// Function is the host call concerned, "namespace.function".
	Function string `json:"function,omitempty"`
	// Line and Column are the call's 1-based position in the submitted
	// TypeScript; zero when unknown.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Outcome is the call's outcome, for WarningUnawaited.
	Outcome string `json:"outcome,omitempty"`
	// Message says what happened and what to do, written for the model.
	Message string `json:"message"`
}

// LogEntry is one console call.
type LogEntry struct {
	// Level is "log", "info", "warn", "error" or "debug".
	Level string `json:"level"`
	// Message is the arguments formatted like Node: strings raw, other
	// values as JSON, separated by spaces.
	Message string `json:"message"`
}

// Call outcomes recorded in [CallRecord].
const (
	OutcomeOK        = "ok"
	OutcomeError     = "error"
	OutcomeCancelled = "cancelled"
	OutcomeRejected  = "rejected" // refused by the sandbox (call limit, oversized arguments); the host never saw it
	// OutcomeUnknown: whether the call took effect is unknown. Either the
	// host had not returned when the execution ended, even after its
	// context was cancelled and a grace period passed, or its error was
	// marked with ErrOutcomeUnknown.
	OutcomeUnknown = "unknown"
)

// CallRecord is one host call.
type CallRecord struct {
	// Name is "namespace.function".
	Name string `json:"name"`
	// Duration is how long the host took.
	Duration time.Duration `json:"duration"`
	// Outcome is one of the Outcome constants: what the host returned
	// (ok or error), cancelled when the execution cancelled the call's
	// context and the host then returned an error, rejected when the host
	// never saw it, unknown when the host never returned.
	Outcome string `json:"outcome"`
	// Error is the host's error message when Outcome is not "ok",
	// followed, when the error marshals to a JSON object, by that object's
	// other members, compact: `Validation failed {"issues":[…]}`.
	Error string `json:"error,omitempty"`
	// Line and Column are the 1-based position of the call in the
	// submitted TypeScript when Outcome is not "ok"; zero when unknown.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}
