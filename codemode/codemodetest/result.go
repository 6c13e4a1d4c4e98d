package codemodetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/sandbox"
)

// Result is one execution as the model received it.
type Result struct {
	// Value is the script's return value as JSON ("null" when it returned
	// nothing); nil when the execution failed.
	Value json.RawMessage
	// Logs are the console lines, warnings and errors prefixed with their
	// level ("[warn] …").
	Logs []string
	// Calls are the host calls the script made, in order.
	Calls []Call
	// Warnings are problems that did not stop the script: an unawaited
	// call, an argument a READ-ONLY function ignored.
	Warnings []Warning
	// Truncated reports that the output was cut to the output limit.
	Truncated bool
	// Err is the execution's error; nil when it succeeded.
	Err *Error
	// Text is the text content: everything the model reads.
	Text string
	// Approvals are the approval requests the user was asked, in order.
	Approvals []Approval
}

// Call is one host call of an execution.
type Call struct {
	// Function is the qualified name, such as "garage.getLaps".
	Function string `json:"function"`
	// Outcome is "ok", "error" or another outcome the sandbox reports.
	Outcome string `json:"outcome"`
	// Ms is the call's duration in milliseconds.
	Ms float64 `json:"ms"`
	// Error is the error the script received, as JSON text.
	Error string `json:"error,omitempty"`
}

// Warning is one warning of an execution.
type Warning struct {
	// Kind is sandbox.WarningUnawaited, WarningHost or
	// WarningUndefinedArgument.
	Kind string `json:"kind"`
	// Function is the qualified name of the call it concerns, if any.
	Function string `json:"function,omitempty"`
	// Line and Column locate the call in the script; zero when unknown.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Outcome is the outcome of an unawaited call.
	Outcome string `json:"outcome,omitempty"`
	// Message is the text the model reads.
	Message string `json:"message"`
}

// Approval is one approval request and the test's answer.
type Approval struct {
	// Message is what the user was shown: the calls and their arguments.
	Message string
	// Accepted is the test's answer.
	Accepted bool
}

// Error is a failed execution's error as the model reads it.
//
// errors.Is(err, target) matches a target *sandbox.Error of the same Kind
// (&sandbox.Error{Kind: sandbox.KindTimeout}) and a catalog error of the
// same code (catalog.ErrUnknownFunction, or &catalog.Error{Code:
// catalog.CodeNotFound}) when the script let a host error escape. It is
// safe on [Result.Err] of a successful execution, which is nil: it
// reports false.
type Error struct {
	// Kind is the sandbox's kind (sandbox.KindRuntime…) or one codemode
	// adds, such as "APPROVAL_DECLINED".
	Kind sandbox.Kind `json:"kind"`
	// Message is written for the model.
	Message string `json:"message"`
	// Line and Column locate the error in the script; zero when unknown.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Code is the catalog code (catalog.CodeOf) of an uncaught host error:
	// catalog.CodeValidation when it carries Issues.
	Code string `json:"code,omitempty"`
	// Issues are the validation issues of an uncaught validation error.
	Issues []catalog.Issue `json:"issues,omitempty"`
}

// Error formats the kind, position, code and message.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Kind))
	if e.Line > 0 {
		fmt.Fprintf(&b, " at line %d, column %d", e.Line, e.Column)
	}
	if e.Code != "" {
		fmt.Fprintf(&b, " (%s)", e.Code)
	}
	b.WriteString(": ")
	b.WriteString(e.Message)
	return b.String()
}

// Is matches a *sandbox.Error by Kind and a catalog error by its code.
// A nil *Error, the Err of an execution that succeeded, matches nothing:
// errors.Is(res.Err, target) is then false.
func (e *Error) Is(target error) bool {
	if e == nil {
		return false
	}
	var se *sandbox.Error
	if errors.As(target, &se) {
		return se.Kind == e.Kind
	}
	var ce *catalog.Error
	switch code := catalog.CodeOf(target); {
	case code == "", code == catalog.CodeUnknown:
		return false
	case code == catalog.CodeCancelled && !errors.As(target, &ce):
		return false // context.Canceled itself is no host error
	default:
		return code == e.Code
	}
}

// fill decodes a tools/call result.
func (r *Result) fill(out *mcp.CallToolResult) error {
	for _, c := range out.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			r.Text += t.Text
		}
	}
	raw, err := json.Marshal(out.StructuredContent)
	if err != nil {
		return fmt.Errorf("structuredContent: %w", err)
	}
	var st struct {
		Result    json.RawMessage `json:"result"`
		Logs      []string        `json:"logs"`
		Calls     []Call          `json:"calls"`
		Truncated bool            `json:"truncated"`
		Warnings  []Warning       `json:"warnings"`
		Error     *Error          `json:"error"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return fmt.Errorf("structuredContent %.200s: %w", raw, err)
	}
	r.Value, r.Logs, r.Calls, r.Truncated, r.Warnings, r.Err = st.Result, st.Logs, st.Calls, st.Truncated, st.Warnings, st.Error
	if out.IsError != (r.Err != nil) {
		return fmt.Errorf("isError %v but structuredContent.error is %s", out.IsError, raw)
	}
	if r.Err != nil && r.Err.Code == "" && len(r.Err.Issues) > 0 {
		// A validation error's JSON has issues and no code.
		r.Err.Code = catalog.CodeValidation
	}
	if r.Err == nil && r.Value == nil {
		r.Value = json.RawMessage("null")
	}
	return nil
}

// Decode decodes the result's value into a T with encoding/json. It returns the execution's
// error when the script failed.
func Decode[T any](r *Result) (T, error) {
	var v T
	if r.Err != nil {
		return v, r.Err
	}
	if err := json.Unmarshal(r.Value, &v); err != nil {
		return v, fmt.Errorf("decoding %.200s into %T: %w", r.Value, v, err)
	}
	return v, nil
}

// Value is Decode that fails the test when the script failed or its value
// does not decode into a T.
func Value[T any](tb testing.TB, r *Result) T {
	tb.Helper()
	v, err := Decode[T](r)
	if err != nil {
		tb.Fatalf("codemodetest: %v\n%s", err, r.Text)
	}
	return v
}
