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
	// Duration is the wall-clock time of the execution.
	Duration time.Duration `json:"duration"`
	// Truncated reports that output went over MaxOutputBytes and was cut;
	// the last log entry then says so.
	Truncated bool `json:"truncated,omitempty"`
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
)

// CallRecord is one host call.
type CallRecord struct {
	// Name is "namespace.function".
	Name string `json:"name"`
	// Duration is how long the host took.
	Duration time.Duration `json:"duration"`
	// Outcome is one of the Outcome constants.
	Outcome string `json:"outcome"`
	// Error is the host's error message when Outcome is not "ok".
	Error string `json:"error,omitempty"`
}
