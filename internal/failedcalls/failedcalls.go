// Package failedcalls writes what a tool result says about the host calls
// of an execution that failed: one line per function, position and
// error, with a validation error's issues as "path: message", so that a
// model whose script caught the errors, or that ran into a limit while
// retrying, sees why without the logs.
package failedcalls

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/sandbox"
)

// Call is one host call as a tool result's structuredContent.calls lists
// it.
type Call struct {
	Function string  `json:"function"`
	Outcome  string  `json:"outcome"`
	Ms       float64 `json:"ms"`
	Error    string  `json:"error,omitempty"`
	Line     int     `json:"line,omitempty"`
	Column   int     `json:"column,omitempty"`
}

// Position is where an execution's error points (1-based).
type Position struct{ Line, Column int }

// maxFailedGroups bounds the distinct failures the text lists.
const maxFailedGroups = 5

// failedGroup is the calls of one function at one position that failed
// with one error: a loop's failures are one line.
type failedGroup struct {
	c Call
	n int
}

// failedGroups groups the calls that failed (the host's errors and the
// sandbox's refusals other than the call limit, which the error states)
// in the order they started, leaving out a lone call that failed where
// the execution's error (at, nil for a success) points: that error is
// already on the first line.
func failedGroups(calls []Call, at *Position) (groups []failedGroup, more int) {
	idx := map[Call]int{}
	for _, c := range calls {
		if c.Outcome != sandbox.OutcomeError && (c.Outcome != sandbox.OutcomeRejected || c.Error == "call limit reached") {
			continue
		}
		if approval.StoppedCall(c.Function, c.Error) {
			continue // the approval's outcome, written in its place, says it
		}
		key := Call{Function: c.Function, Error: c.Error, Line: c.Line, Column: c.Column}
		if i, ok := idx[key]; ok {
			groups[i].n++
			continue
		}
		if len(groups) == maxFailedGroups {
			more++
			continue
		}
		idx[key] = len(groups)
		groups = append(groups, failedGroup{c: key, n: 1})
	}
	if at != nil && len(groups) == 1 && groups[0].n == 1 && groups[0].c.Line == at.Line && groups[0].c.Column == at.Column {
		return nil, 0
	}
	return groups, more
}

// Any reports whether Write would write anything.
func Any(calls []Call, at *Position) bool {
	g, _ := failedGroups(calls, at)
	return len(g) > 0
}

// Write lists the calls that failed, one line per function,
// position and error: a model whose script caught the errors, or that
// ran into a limit while retrying, sees why without the logs.
func Write(b *strings.Builder, calls []Call, title string, at *Position) {
	groups, more := failedGroups(calls, at)
	if len(groups) == 0 {
		return
	}
	b.WriteString(title)
	b.WriteString("\n")
	for _, g := range groups {
		b.WriteString("- ")
		b.WriteString(g.c.Function)
		if g.c.Line > 0 {
			fmt.Fprintf(b, " at line %d, column %d", g.c.Line, g.c.Column)
		}
		if g.n > 1 {
			fmt.Fprintf(b, " (%d calls)", g.n)
		}
		b.WriteString(": ")
		b.WriteString(FirstLine(ErrorLine(g.c.Error), 300))
		b.WriteString("\n")
	}
	if more > 0 {
		fmt.Fprintf(b, "- and %d more failed calls with other errors (structuredContent.calls lists every call)\n", more)
	}
	b.WriteString("\n")
}

// ErrorLine renders a call record's error, "message {…members}" (see
// sandbox.CallRecord), as the model reads an uncaught one: a validation
// error's issues as "path: message", joined by "; ".
func ErrorLine(s string) string {
	i := strings.Index(s, " {")
	if i < 0 {
		return s
	}
	var m struct {
		Issues []catalog.Issue `json:"issues"`
		Code   string          `json:"code"`
	}
	if json.Unmarshal([]byte(s[i+1:]), &m) != nil {
		return s
	}
	if len(m.Issues) == 0 {
		if m.Code != "" && !strings.Contains(s[i+1:], `,"`) { // the code alone
			return s[:i] + " (code: " + m.Code + ")"
		}
		return s
	}
	parts := make([]string, len(m.Issues))
	for j, is := range m.Issues {
		parts[j] = IssuePath(is.Path) + ": " + is.Message
	}
	return s[:i] + ": " + strings.Join(parts, "; ")
}

// FirstLine is the first line of s, cut to n bytes at a rune boundary.
func FirstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// IssuePath renders ["corners", 0, "verdict"] as corners[0].verdict.
func IssuePath(path []any) string {
	if len(path) == 0 {
		return "(arguments)"
	}
	var b strings.Builder
	for i, p := range path {
		switch v := p.(type) {
		case int, int64, float64:
			fmt.Fprintf(&b, "[%v]", v)
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			fmt.Fprintf(&b, "%v", v)
		}
	}
	return b.String()
}
