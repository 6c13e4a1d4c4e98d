package sandbox

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// TestDecodeDone checks that decodeDone reads every field of a Done frame
// as encoding/json, which the worker writes it with, reads it back.
func TestDecodeDone(t *testing.T) {
	full := doneMsg{
		Result: &Result{
			Value:     json.RawMessage(`{"a":[1,2.5,"x\"y"],"b":null}`),
			Logs:      []LogEntry{{Level: "log", Message: `Weakest: [{"c":"La Source"}] é ☃ \u0000` + "\x00"}, {Level: "warn", Message: "two"}},
			Calls:     []CallRecord{{Name: "ns.f", Duration: 1234567 * time.Nanosecond, Outcome: OutcomeOK, Line: 3, Column: 7}, {Name: "ns.g", Outcome: OutcomeError, Error: "no"}},
			Duration:  3 * time.Millisecond,
			Compile:   -1, // negative durations too
			Truncated: true,
			Warnings:  []Warning{{Kind: WarningUnawaited, Function: "ns.f", Line: 1, Column: 2, Outcome: OutcomeUnknown, Message: "m"}},
			Entropy:   &Entropy{Times: []int64{1, -2, 1 << 62}, Random: []float64{0.5, 1e-300, 0.1 + 0.2}, Overflow: true},
		},
		Error: &Error{Kind: KindRuntime, Message: "boom", Line: 4, Column: 5, Source: "x()", Stack: "at x", CallsUsed: 2, Data: json.RawMessage(`{"issues":[]}`)},
		Dirty: true,
	}
	for _, d := range []doneMsg{full, {}, {Result: &Result{Value: json.RawMessage(`"\ud800 lone"`)}}, {Error: &Error{Kind: KindTimeout, Message: "t"}}} {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var want doneMsg
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		got, err := decodeDone(b)
		if err != nil {
			t.Fatalf("decodeDone(%s): %v", b, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("decodeDone(%s)\n got %+v\nwant %+v", b, got, want)
		}
	}
	// Invalid UTF-8 and duplicate names, which encoding/json accepts.
	for _, b := range []string{
		"{\"result\":{\"value\":\"\xff\",\"logs\":[{\"level\":\"log\",\"message\":\"\xfe\"}],\"duration\":1}}",
		`{"result":{"value":1,"value":2,"duration":1}}`,
	} {
		var want doneMsg
		if err := json.Unmarshal([]byte(b), &want); err != nil {
			t.Fatal(err)
		}
		got, err := decodeDone([]byte(b))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("decodeDone(%q) = %+v, %v; want %+v", b, got, err, want)
		}
	}
	if _, err := decodeDone([]byte(`{"result":`)); err == nil {
		t.Error("a truncated frame decoded")
	}
}
