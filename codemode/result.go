package codemode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/failedcalls"
	"github.com/brakinglab/codemode-go/internal/jsonnull"
	"github.com/brakinglab/codemode-go/internal/jsonscan"
	"github.com/brakinglab/codemode-go/sandbox"
)

// execError is the error half of a tool result, as the model sees it in
// structuredContent.error: the sandbox's error (its call count and raw data
// left out) with the validation issues of an uncaught host error.
type execError struct {
	sandbox.Error
	// Code is the code of an uncaught host error (catalog.CodeNotFound…).
	Code   string          `json:"code,omitempty"`
	Issues []catalog.Issue `json:"issues,omitempty"`
}

// at is where xe points, for package failedcalls; nil for no error.
func (xe *execError) at() *failedcalls.Position {
	if xe == nil {
		return nil
	}
	return &failedcalls.Position{Line: xe.Line, Column: xe.Column}
}

// kindInvalidInput is the kind of a tools/call whose arguments are not
// {"code": "…"}: the only kind the model sees that the sandbox does not
// produce.
const kindInvalidInput sandbox.Kind = "INVALID_INPUT"

// newExecError is an execError with no position, stack or issues.
func newExecError(kind sandbox.Kind, message string) *execError {
	return &execError{Error: sandbox.Error{Kind: kind, Message: message}}
}

// callSummary is one host call in structuredContent.calls.
type callSummary = failedcalls.Call

// structured is the structuredContent of a tool result.
type structured struct {
	Result    json.RawMessage `json:"result,omitempty"`
	Logs      []string        `json:"logs"`
	Calls     []callSummary   `json:"calls"`
	Truncated bool            `json:"truncated,omitempty"`
	Warnings  []warning       `json:"warnings,omitempty"`
	Error     *execError      `json:"error,omitempty"`
	// Writes lists the writes of an execution that asked for approval,
	// across all its runs.
	Writes []approval.Write `json:"writes,omitempty"`
	// Charts are the specs codemode.chart added, for the MCP Apps view.
	Charts []json.RawMessage `json:"charts,omitempty"`
	// ApprovalURL is the approval page link of an APPROVAL_PENDING or
	// APPROVAL_EXPIRED error, for the model to give the user.
	ApprovalURL string `json:"approvalUrl,omitempty"`
}

// warning is one entry of structuredContent.warnings: a sandbox.Warning
// (an unawaited host call, or what a function reported, such as an
// ignored argument).
type warning struct {
	Kind     string `json:"kind"`
	Function string `json:"function,omitempty"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
	Outcome  string `json:"outcome,omitempty"`
	Message  string `json:"message"`
}

// writeWarnings writes the warnings as a list, each with the position of
// the call it concerns. Identical warnings for one position (a call in a
// loop) are written once with their count; structuredContent keeps each.
func writeWarnings(b *strings.Builder, ws []warning) {
	if len(ws) == 0 {
		return
	}
	b.WriteString("Warnings:\n")
	for i := 0; i < len(ws); {
		w, n := ws[i], 1
		for i+n < len(ws) && ws[i+n] == w {
			n++
		}
		i += n
		b.WriteString("- ")
		if w.Line > 0 {
			fmt.Fprintf(b, "line %d, column %d", w.Line, w.Column)
			if n > 1 {
				fmt.Fprintf(b, " (%d calls)", n)
			}
			b.WriteString(": ")
		} else if n > 1 {
			fmt.Fprintf(b, "(%d times) ", n)
		}
		b.WriteString(w.Message)
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// successResult renders a finished execution: the logs, then the return
// value as JSON.
func (s *Server) successResult(res *sandbox.Result) *mcp.CallToolResult {
	value := res.Value
	if len(value) == 0 {
		value = json.RawMessage("null")
	}
	if !s.opts.KeepNulls {
		if v, err := jsonnull.Strip(value); err == nil {
			value = v
		}
	}
	st := summarize(res)
	st.Result = value

	var b strings.Builder
	failedcalls.Write(&b, st.Calls, "Calls that failed (the script caught their errors and went on):", nil)
	writeWarnings(&b, st.Warnings)
	writeLogs(&b, st.Logs, "Logs:")
	b.WriteString("Result:\n")
	b.Write(indentJSON(value))
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: b.String()}},
		StructuredContent: st,
	}
}

// errorResult renders a failed execution: what failed and where, the
// validation issues, then the logs made before the failure.
func errorResult(xe *execError, res *sandbox.Result) *mcp.CallToolResult {
	var st structured
	if res != nil {
		st = summarize(res)
	} else {
		st = structured{Logs: []string{}, Calls: []callSummary{}}
	}
	st.Error = xe

	var b strings.Builder
	b.WriteString(string(xe.Kind))
	if xe.Line > 0 {
		fmt.Fprintf(&b, " at line %d, column %d", xe.Line, xe.Column)
	}
	b.WriteString(": ")
	b.WriteString(xe.Message)
	b.WriteString("\n")
	if xe.Code != "" {
		fmt.Fprintf(&b, "  code: %s\n", xe.Code)
	}
	if xe.Source != "" {
		fmt.Fprintf(&b, "  %d | %s\n", xe.Line, xe.Source)
	}
	for _, is := range xe.Issues {
		fmt.Fprintf(&b, "  - %s: %s\n", failedcalls.IssuePath(is.Path), is.Message)
	}
	writeFrames(&b, xe)
	if at := xe.at(); failedcalls.Any(st.Calls, at) {
		b.WriteString("\n")
		failedcalls.Write(&b, st.Calls, "Calls that failed:", at)
		trimmed := strings.TrimRight(b.String(), "\n")
		b.Reset()
		b.WriteString(trimmed)
		b.WriteString("\n")
	}
	if len(st.Warnings) > 0 {
		b.WriteString("\n")
		writeWarnings(&b, st.Warnings)
	}
	writeLogs(&b, st.Logs, "\nLogs before the error:")
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: strings.TrimRight(b.String(), "\n")}},
		StructuredContent: st,
		IsError:           true,
	}
}

func summarize(res *sandbox.Result) structured {
	st := structured{Logs: make([]string, 0, len(res.Logs)), Calls: make([]callSummary, 0, len(res.Calls)), Truncated: res.Truncated}
	for _, l := range res.Logs {
		if l.Level == "" || l.Level == "log" || l.Level == "info" {
			st.Logs = append(st.Logs, l.Message)
		} else {
			st.Logs = append(st.Logs, "["+l.Level+"] "+l.Message)
		}
	}
	for _, c := range res.Calls {
		st.Calls = append(st.Calls, callSummary{Function: c.Name, Outcome: c.Outcome, Ms: float64(c.Duration.Microseconds()) / 1000, Error: c.Error, Line: c.Line, Column: c.Column})
	}
	for _, w := range res.Warnings {
		st.Warnings = append(st.Warnings, warning(w))
	}
	return st
}

func writeLogs(b *strings.Builder, logs []string, title string) {
	if len(logs) == 0 {
		return
	}
	b.WriteString(title)
	b.WriteString("\n")
	for _, l := range logs {
		b.WriteString(l)
		b.WriteString("\n")
	}
	if !strings.HasPrefix(title, "\n") {
		b.WriteString("\n")
	}
}

// indentJSON pretty-prints small values and leaves others compact:
// indentation of a big array costs more tokens than it helps, and of a
// deeply nested one grows with the square of its depth (a 4 KiB nested
// array became 8 MB). A value is indented only when the printed form is
// at most twice its compact size, or 1 KiB.
func indentJSON(v json.RawMessage) []byte {
	if len(v) > 4<<10 || indentedSize(v) > max(2*len(v), 1<<10) {
		return v
	}
	var b bytes.Buffer
	if err := json.Indent(&b, v, "", "  "); err != nil {
		return v
	}
	return b.Bytes()
}

// indentedSize estimates the size of v as json.Indent prints it with a
// two-space indent, without building it: every element and member starts
// a line indented by its depth.
func indentedSize(v []byte) int {
	n := len(v)
	jsonscan.Structural(v, func(c byte, depth int) {
		switch c {
		case ':':
			n++ // the space after it
		default: // a newline and the indent of the next line
			n += 1 + 2*depth
		}
	})
	return n
}

// resultBytes is the size of what an execution returned to the model.
func resultBytes(res *sandbox.Result) int {
	n := len(res.Value)
	for _, l := range res.Logs {
		n += len(l.Message)
	}
	return n
}

// writeFrames writes up to ten "at …" frames of the stack. The stack's
// first line repeats the message, and a lone frame at the reported
// position says nothing new, so neither is written.
func writeFrames(b *strings.Builder, xe *execError) {
	var frames []string
	for line := range strings.SplitSeq(xe.Stack, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "at ") && len(frames) < 10 {
			frames = append(frames, line)
		}
	}
	if len(frames) == 1 && strings.HasSuffix(strings.TrimSuffix(frames[0], ")"), fmt.Sprintf("agent.ts:%d:%d", xe.Line, xe.Column)) {
		return
	}
	for _, f := range frames {
		b.WriteString("  ")
		b.WriteString(f)
		b.WriteString("\n")
	}
}
