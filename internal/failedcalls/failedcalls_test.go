package failedcalls

import (
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/sandbox"
)

func TestIssuePath(t *testing.T) {
	for _, tt := range []struct {
		path []any
		want string
	}{
		{nil, "(arguments)"},
		{[]any{"a"}, "a"},
		{[]any{"corners", float64(0), "verdict"}, "corners[0].verdict"},
		{[]any{"m", "k"}, "m.k"},
	} {
		if got := IssuePath(tt.path); got != tt.want {
			t.Errorf("IssuePath(%v) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestWrite(t *testing.T) {
	failed := func(fn, err string, line int) Call {
		return Call{Function: fn, Outcome: string(sandbox.OutcomeError), Error: err, Line: line, Column: 3}
	}
	var calls []Call
	for range 3 { // a loop's failures are one line
		calls = append(calls, failed("lab.get", "not found", 2))
	}
	calls = append(calls,
		Call{Function: "lab.ok", Outcome: "ok"},
		Call{Function: "lab.more", Outcome: string(sandbox.OutcomeRejected), Error: "call limit reached"}, // the error says it
		failed("lab.put", `Validation failed {"issues":[{"path":["laps",0],"message":"Required"}]}`, 4),
	)
	var b strings.Builder
	Write(&b, calls, "Calls that failed:", nil)
	want := "Calls that failed:\n" +
		"- lab.get at line 2, column 3 (3 calls): not found\n" +
		"- lab.put at line 4, column 3: Validation failed: laps[0]: Required\n\n"
	if b.String() != want {
		t.Errorf("Write:\n%s\nwant:\n%s", b.String(), want)
	}
	// A lone failure where the execution's error points is already said.
	lone := []Call{failed("lab.get", "not found", 2)}
	if Any(lone, &Position{Line: 2, Column: 3}) {
		t.Error("a lone failure at the error's position was listed again")
	}
	if !Any(lone, &Position{Line: 9, Column: 1}) || !Any(lone, nil) {
		t.Error("a failure elsewhere was not listed")
	}
	// Past maxFailedGroups distinct failures, the rest are counted.
	var many []Call
	for i := range maxFailedGroups + 2 {
		many = append(many, failed("lab.get", "error", i+1))
	}
	b.Reset()
	Write(&b, many, "Calls that failed:", nil)
	if !strings.Contains(b.String(), "- and 2 more failed calls") {
		t.Errorf("the rest were not counted:\n%s", b.String())
	}
}

func TestFirstLine(t *testing.T) {
	if got := FirstLine("one\ntwo", 10); got != "one" {
		t.Errorf("FirstLine = %q", got)
	}
	if got := FirstLine("aé", 2); got != "a…" { // never splits a character
		t.Errorf("FirstLine = %q", got)
	}
}
