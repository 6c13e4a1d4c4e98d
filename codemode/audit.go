package codemode

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/brakinglab/codemode-go/internal/auditargs"
)

// AuditKind names an audit event.
type AuditKind string

// The audit events. Every execution produces ExecutionStarted, then one
// FunctionCalled per host call, then ExecutionFinished or ExecutionFailed.
const (
	ExecutionStarted  AuditKind = "execution.started"
	FunctionCalled    AuditKind = "function.called"
	ExecutionFinished AuditKind = "execution.finished"
	ExecutionFailed   AuditKind = "execution.failed"
)

// The saved functions' events (Options.Saved), made by a script or from
// Go (Tool empty): Subject is the owner; Function, Version, Tier and
// CodeSHA256 name the version (never its code).
const (
	FunctionSaved       AuditKind = "function.saved"
	FunctionPublished   AuditKind = "function.published"
	FunctionUnpublished AuditKind = "function.unpublished"
	FunctionRemoved     AuditKind = "function.removed"
)

// AuditEvent is one structured audit record. It never holds the code (only
// its SHA-256) nor any result data; argument values appear only when
// [AuditOptions.Args] is [AuditArgValues].
type AuditEvent struct {
	Kind    AuditKind `json:"event"`
	Time    time.Time `json:"time"`
	TraceID string    `json:"traceId"`
	// Subject and ClientID identify the principal; empty when anonymous.
	Subject  string `json:"subject,omitempty"`
	ClientID string `json:"clientId,omitempty"`
	// Tool is the MCP tool that ran the code.
	Tool string `json:"tool"`
	// CodeSHA256 is the hex SHA-256 of the submitted code; CodeBytes its size.
	CodeSHA256 string `json:"codeSha256,omitempty"`
	CodeBytes  int    `json:"codeBytes,omitempty"`
	// Function and Tier are set on FunctionCalled events and the saved
	// functions' events.
	Function string `json:"function,omitempty"`
	Tier     string `json:"tier,omitempty"`
	// Version is the saved function's version on its events.
	Version int `json:"version,omitempty"`
	// From names the saved function whose code made the call
	// ("saved.weeklyReview version 3"); empty for the script's own calls.
	From string `json:"from,omitempty"`
	// Args describes the call's arguments as configured by Options.Audit.Args:
	// a map from key to JSON size by default, the JSON itself with
	// AuditArgValues, nil with AuditArgsNone.
	Args any `json:"args,omitempty"`
	// Duration of the call or the execution; zero on ExecutionStarted.
	// JSON and the slog sink both write it as "durationMs", fractional
	// milliseconds.
	Duration time.Duration `json:"-"`
	// ResultBytes is the size of the function's JSON result or of the
	// execution's return value plus logs.
	ResultBytes int `json:"resultBytes,omitempty"`
	// Calls is the number of host calls an execution made.
	Calls int `json:"calls,omitempty"`
	// ErrorKind classifies a failure: a sandbox kind such as "TIMEOUT", or
	// for a function call the catalog code of its error (catalog.CodeOf):
	// "validation", "insufficient_scope", "not_found", "conflict",
	// "invalid", "unauthenticated", "unknown_function", "cancelled",
	// "internal", "tool_error", "upstream", "outcome_unknown" or "unknown".
	ErrorKind string `json:"errorKind,omitempty"`
}

// MarshalJSON writes the event with the field names the slog sink uses
// ([NewSlogAudit]): log.kind=audit, and the duration as "durationMs" in
// fractional milliseconds.
func (ev AuditEvent) MarshalJSON() ([]byte, error) {
	type fields AuditEvent // without the method
	return json.Marshal(struct {
		LogKind string `json:"log.kind"`
		fields
		DurationMs float64 `json:"durationMs,omitempty"`
	}{AuditLogKind, fields(ev), durationMs(ev.Duration)})
}

func durationMs(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// AuditSink receives audit events. Audit is called synchronously on the
// execution's goroutines, possibly concurrently: it must be safe for
// concurrent use and should not block.
type AuditSink interface {
	Audit(ctx context.Context, ev AuditEvent)
}

// AuditFunc adapts a function to an AuditSink. A nil AuditFunc is refused
// by New: use [NoAudit] to turn auditing off.
type AuditFunc func(ctx context.Context, ev AuditEvent)

// NoAudit discards every event: set Options.Audit.Sink to it to turn auditing
// off (the default writes JSON lines on stderr).
var NoAudit AuditSink = noAudit{}

type noAudit struct{}

func (noAudit) Audit(context.Context, AuditEvent) {}

// Audit calls f(ctx, ev).
func (f AuditFunc) Audit(ctx context.Context, ev AuditEvent) { f(ctx, ev) }

// AuditArgs says how much of a function call's arguments an audit event
// records.
type AuditArgs int

const (
	// AuditArgKeys (the default) records each top-level key of the argument
	// object with the size in bytes of its JSON value, never the values.
	AuditArgKeys AuditArgs = iota
	// AuditArgsNone records nothing about arguments.
	AuditArgsNone
	// AuditArgValues records the argument JSON as sent. It may put personal
	// data in the audit log: enable it deliberately.
	AuditArgValues
)

// NewSlogAudit returns a sink writing each event as one slog record at
// Info level (message "audit", the event's fields as attributes). With a
// slog.JSONHandler this gives one JSON object per line.
//
// Every record carries the attribute log.kind=audit ([AuditLogKey],
// [AuditLogKind]), which operational records never have: in a shared
// output the two are told apart by it, and a handler can route audit
// records elsewhere (or give the sink a logger of its own).
func NewSlogAudit(l *slog.Logger) AuditSink {
	if l == nil {
		l = slog.Default()
	}
	return slogAudit{l}
}

// The attribute that marks a record written by [NewSlogAudit].
const (
	AuditLogKey  = "log.kind"
	AuditLogKind = "audit"
)

type slogAudit struct{ l *slog.Logger }

func (s slogAudit) Audit(ctx context.Context, ev AuditEvent) {
	attrs := []slog.Attr{
		slog.String(AuditLogKey, AuditLogKind),
		slog.String("event", string(ev.Kind)),
		slog.String("traceId", ev.TraceID),
		slog.String("tool", ev.Tool),
	}
	add := func(key, v string) {
		if v != "" {
			attrs = append(attrs, slog.String(key, v))
		}
	}
	add("subject", ev.Subject)
	add("clientId", ev.ClientID)
	add("codeSha256", ev.CodeSHA256)
	if ev.CodeBytes > 0 {
		attrs = append(attrs, slog.Int("codeBytes", ev.CodeBytes))
	}
	add("function", ev.Function)
	add("tier", ev.Tier)
	if ev.Version > 0 {
		attrs = append(attrs, slog.Int("version", ev.Version))
	}
	if ev.Args != nil {
		attrs = append(attrs, slog.Any("args", ev.Args))
	}
	if ev.Kind != ExecutionStarted && ev.Version == 0 {
		attrs = append(attrs, slog.Float64("durationMs", durationMs(ev.Duration)))
	}
	if ev.Kind == FunctionCalled || ev.Kind == ExecutionFinished {
		attrs = append(attrs, slog.Int("resultBytes", ev.ResultBytes))
	}
	if ev.Kind == ExecutionFinished || ev.Kind == ExecutionFailed {
		attrs = append(attrs, slog.Int("calls", ev.Calls))
	}
	add("errorKind", ev.ErrorKind)
	s.l.LogAttrs(ctx, slog.LevelInfo, "audit", attrs...)
}

// auditArgs describes args for an audit event according to mode.
func auditArgs(mode AuditArgs, args json.RawMessage) any {
	switch mode {
	case AuditArgsNone:
		return nil
	case AuditArgValues:
		if len(args) == 0 {
			return nil
		}
		return json.RawMessage(args)
	}
	return auditargs.KeySizes(args)
}
