package approval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/sandbox"
)

// An execution that stops for approval is resumed, not re-executed: the
// run after the user's answer replays the host calls the earlier runs
// made, answering them from their record without calling the host, and
// replays the clock and Math.random (sandbox.RunOptions.Entropy), so the
// code takes the same path and no write runs twice.

// maxRecordBytes bounds a record sealed into a request state: it travels
// to the client and back with the answer.
const maxRecordBytes = 256 << 10

// recordedCall is one host call of an execution that ran, as a later run
// of the same execution replays it.
type recordedCall struct {
	Fn    string          `json:"fn"`
	Args  json.RawMessage `json:"args"` // canonical (canonicalArgs)
	Out   json.RawMessage `json:"out,omitempty"`
	Err   *recordedError  `json:"err,omitempty"`
	Write bool            `json:"w,omitempty"` // a call of a function that writes, and it succeeded
}

// recordedError is a host error as the script read it: its message and,
// when it had one, its own JSON object (a *catalog.Error with its code
// and issues), so the replayed script catches exactly the same error.
type recordedError struct {
	Msg  string          `json:"msg"`
	Code string          `json:"code,omitempty"` // catalog.CodeOf
	Obj  json.RawMessage `json:"obj,omitempty"`
}

func (e *recordedError) Error() string { return e.Msg }

// Is keeps a replayed unknown outcome unknown: the sandbox records the
// replayed call as it recorded the original.
func (e *recordedError) Is(target error) bool {
	return target == sandbox.ErrOutcomeUnknown && e.Code == catalog.CodeOutcomeUnknown
}

// MarshalJSON returns the original error's object, which the sandbox
// gives the script. A record is sealed or stored with recordedErrorWire,
// which keeps every field.
func (e *recordedError) MarshalJSON() ([]byte, error) {
	if len(e.Obj) > 0 {
		return e.Obj, nil
	}
	return json.Marshal(map[string]string{"message": e.Msg})
}

// recordedErrorWire is a recordedError as a record carries it: its
// MarshalJSON is the script's view, which drops the message and code.
type recordedErrorWire struct {
	Msg  string          `json:"msg"`
	Code string          `json:"code,omitempty"`
	Obj  json.RawMessage `json:"obj,omitempty"`
}

// recordedCallWire is a recordedCall as a record carries it.
type recordedCallWire struct {
	Fn    string             `json:"fn"`
	Args  json.RawMessage    `json:"args"`
	Out   json.RawMessage    `json:"out,omitempty"`
	Err   *recordedErrorWire `json:"err,omitempty"`
	Write bool               `json:"w,omitempty"`
}

// MarshalJSON writes the call with its error's every field, so a record
// sealed into a request state or stored for the approval page replays
// the same error (message, code and object) the script read.
func (c recordedCall) MarshalJSON() ([]byte, error) {
	w := recordedCallWire{Fn: c.Fn, Args: c.Args, Out: c.Out, Write: c.Write}
	if c.Err != nil {
		w.Err = &recordedErrorWire{Msg: c.Err.Msg, Code: c.Err.Code, Obj: c.Err.Obj}
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (c *recordedCall) UnmarshalJSON(b []byte) error {
	var w recordedCallWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = recordedCall{Fn: w.Fn, Args: w.Args, Out: w.Out, Write: w.Write}
	if w.Err != nil {
		c.Err = &recordedError{Msg: w.Err.Msg, Code: w.Err.Code, Obj: w.Err.Obj}
	}
	return nil
}

func recordError(err error) *recordedError {
	if err == nil {
		return nil
	}
	re := &recordedError{Msg: err.Error(), Code: catalog.CodeOf(err)}
	if jm, ok := err.(json.Marshaler); ok {
		if b, merr := jm.MarshalJSON(); merr == nil && len(b) > 0 && b[0] == '{' {
			re.Obj = b
		}
	}
	return re
}

// Write is one write an execution made, as the model and the user read
// it: a result lists them in structuredContent.writes.
type Write struct {
	Function string          `json:"function"`
	Args     json.RawMessage `json:"args"`
	ID       json.RawMessage `json:"id,omitempty"` // the result's id, when it has one
}

// writesOf lists the writes in a record, in the order they were made.
func writesOf(rec []recordedCall) []Write {
	var out []Write
	for _, c := range rec {
		if c.Write {
			out = append(out, Write{Function: c.Fn, Args: c.Args, ID: resultID(c.Out)})
		}
	}
	return out
}

// resultID is the top-level "id" (or the only member ending in "Id") of
// a call's result, when it is a string or a number.
func resultID(out json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if len(out) == 0 || out[0] != '{' || json.Unmarshal(out, &obj) != nil {
		return nil
	}
	scalar := func(v json.RawMessage) bool {
		return len(v) > 0 && (v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))
	}
	if v, ok := obj["id"]; ok && scalar(v) {
		return v
	}
	var found json.RawMessage
	for k, v := range obj {
		if strings.HasSuffix(k, "Id") && scalar(v) {
			if found != nil {
				return nil
			}
			found = v
		}
	}
	return found
}

// writesText renders writes for the model and the user, one a line:
// ns.fn({"args"}) → id 12.
func writesText(ws []Write, indent string) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(indent + w.Function + "(" + string(w.Args) + ")")
		if w.ID != nil {
			b.WriteString(" → id " + string(w.ID))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// writtenNote is the sentence of an approval outcome about writes:
// never "nothing was written" when something was.
func writtenNote(ws []Write) string {
	switch len(ws) {
	case 0:
		return "Nothing was written."
	case 1:
		return "This execution already made 1 write, which stays: " + strings.TrimSuffix(writesText(ws, ""), "\n") + "."
	}
	return fmt.Sprintf("This execution already made %d writes, which stay: %s.", len(ws), strings.Join(strings.Split(strings.TrimSuffix(writesText(ws, ""), "\n"), "\n"), "; "))
}

// replay answers the calls of a run from the record of the runs before
// it. A call matches the first unused recorded call with the same
// function and canonical arguments: calls issued together (Promise.all)
// reach the host in any order.
type replay struct {
	rec  []recordedCall
	used []bool
	left int
}

func newReplay(rec []recordedCall) *replay {
	return &replay{rec: rec, used: make([]bool, len(rec)), left: len(rec)}
}

// divergence is the first call of a resumed run that is neither in the
// record nor approved where the record says the run had to make another.
type divergence struct {
	Got  approvedCall // what the run called
	Want approvedCall // what the record or the approval expected there
}

// take answers fn(canon) from the record if an unused recorded call has
// the same function and arguments, and marks it used.
func (p *replay) take(fn string, canon json.RawMessage) *recordedCall {
	if p == nil || p.left == 0 {
		return nil
	}
	for i := range p.rec {
		if !p.used[i] && p.rec[i].Fn == fn && bytes.Equal(p.rec[i].Args, canon) {
			p.used[i] = true
			p.left--
			return &p.rec[i]
		}
	}
	return nil
}

// firstLeft returns the first recorded call not yet replayed, if any.
func (p *replay) firstLeft() (approvedCall, bool) {
	if p == nil || p.left == 0 {
		return approvedCall{}, false
	}
	for i, c := range p.rec {
		if !p.used[i] {
			return approvedCall{Fn: c.Fn, Args: c.Args}, true
		}
	}
	return approvedCall{}, false
}

// errDiverged is what the script's call rejects with when it diverges;
// the execution's outcome replaces it.
var errDiverged = errors.New("this call differs from the run the user approved; the execution stops here")

// entropyOf is the record of the clock and random numbers to replay.
func entropyOf(res *sandbox.Result) *sandbox.Entropy {
	if res == nil || res.Entropy == nil {
		return &sandbox.Entropy{}
	}
	return res.Entropy
}
