package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/brakinglab/codemode-go/internal/jsonscan"
)

// output accumulates console output and the return value under the
// MaxOutputBytes cap. Sizes count message and value bytes; the truncation
// marker itself is not counted.
type output struct {
	max       int
	used      int // bytes of log messages kept
	logs      []LogEntry
	truncated bool
}

// ellipsis ends a message that was cut.
const ellipsis = "…"

func truncationMarker(max int) LogEntry {
	return LogEntry{Level: "warn", Message: fmt.Sprintf("[output truncated: over the %d-byte output limit. Log less or return less: filter, aggregate or slice the data inside the script and print only what you need.]", max)}
}

// log appends one console entry, cutting it and adding the marker once the
// cap is reached; later entries are dropped.
func (o *output) log(level, msg string) {
	if o.truncated {
		return
	}
	if o.used+len(msg) <= o.max {
		o.used += len(msg)
		o.logs = append(o.logs, LogEntry{Level: level, Message: msg})
		return
	}
	if room := o.max - o.used - len(ellipsis); room > 0 {
		c := cut(msg, room) + ellipsis
		o.used += len(c)
		o.logs = append(o.logs, LogEntry{Level: level, Message: c})
	}
	o.truncated = true
	o.logs = append(o.logs, truncationMarker(o.max))
}

// shrinkLogs cuts the kept logs to budget bytes, ending with the marker.
func (o *output) shrinkLogs(budget int) {
	if o.used <= budget {
		return
	}
	if n := len(o.logs); o.truncated && n > 0 && o.logs[n-1] == truncationMarker(o.max) {
		o.logs = o.logs[:n-1] // the old marker
	}
	used := 0
	for i, l := range o.logs {
		if used+len(l.Message) <= budget {
			used += len(l.Message)
			continue
		}
		o.logs = o.logs[:i]
		if room := budget - used - len(ellipsis); room > 0 {
			c := cut(l.Message, room) + ellipsis
			used += len(c)
			o.logs = append(o.logs, LogEntry{Level: l.Level, Message: c})
		}
		break
	}
	o.used = used
	o.truncated = true
	o.logs = append(o.logs, truncationMarker(o.max))
}

// value fits the return value's JSON into the cap. The value has priority:
// when it fits in the cap, logs are cut to make room. When it does not, it
// becomes a JSON string holding its beginning and a truncation note, and
// shares the cap with the logs.
func (o *output) value(js string) json.RawMessage {
	if len(js) <= o.max {
		o.shrinkLogs(o.max - len(js))
		return json.RawMessage(js)
	}
	o.shrinkLogs(o.max / 2)
	o.truncated = true
	budget := o.max - o.used
	note := ellipsis + fmt.Sprintf(" [return value truncated: it was %d bytes of JSON, over the %d-byte output limit. Return less: filter, aggregate or slice the data inside the script.]", len(js), o.max)
	// Quoting can grow the prefix (every " becomes \"), so shrink it until
	// the encoded string fits.
	n := budget - len(note) - 2
	for {
		b := quoteJSON(cut(js, n) + note)
		if len(b) <= budget || n <= 0 {
			o.used += len(b)
			return b
		}
		n -= len(b) - budget
	}
}

// quoteJSON encodes s as a JSON string without HTML escaping.
func quoteJSON(s string) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// cut returns the longest prefix of s of at most n bytes that ends on a
// rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// maxCallErrorBytes bounds the error text of one call record: a host
// error can echo a huge argument back.
const maxCallErrorBytes = 256

// maxOutputDepth is the deepest nesting of a return value or error data
// the sandbox hands back; deeper JSON is refused (value) or replaced
// (error data) rather than handed to encoders with their own limits.
const maxOutputDepth = 512

// fit makes everything the model receives from one execution count
// against the one output limit: call records' errors and warnings, then a
// failure's message, stack and data, then the logs and the value with what
// remains.
// Each cut part says so.
func (o *output) fit(res *Result, err error) {
	budget := o.max
	if res != nil {
		budget -= fitCalls(res.Calls, o.max/8)
		for _, w := range res.Warnings { // bounded where they are made
			budget -= len(w.Message) + len(w.Function)
		}
	}
	var se *Error
	if errors.As(err, &se) {
		budget -= fitError(se, budget/2)
	}
	if res == nil {
		return
	}
	// o.used may include a cut value's bytes; count the logs alone.
	o.used = 0
	for _, l := range o.logs {
		if l != truncationMarker(o.max) {
			o.used += len(l.Message)
		}
	}
	if se == nil && len(res.Value) > budget {
		// The value fitted the whole limit; calls and error text took
		// part of it.
		v := output{max: max(budget, 0)}
		res.Value = v.value(string(res.Value))
		budget -= len(res.Value)
		o.shrinkLogs(max(budget, 0))
		o.truncated = true
	} else {
		budget -= len(res.Value)
		if o.used > max(budget, 0) {
			o.shrinkLogs(max(budget, 0))
		}
	}
	res.Logs = o.logs
	res.Truncated = res.Truncated || o.truncated
}

// fitCalls cuts each call record's error to maxCallErrorBytes and all of
// them to budget; it returns the bytes they keep.
func fitCalls(calls []CallRecord, budget int) int {
	used := 0
	for i := range calls {
		c := &calls[i]
		c.Error = cutMarked(c.Error, min(maxCallErrorBytes, max(budget-used, 0)))
		used += len(c.Error) + len(c.Name) + len(c.Outcome)
	}
	return used
}

// fitError cuts a failure's message, stack and data to budget in total,
// the message first; it returns the bytes they keep.
func fitError(e *Error, budget int) int {
	budget = max(budget, 256)
	e.Message = cutMarked(e.Message, budget/2)
	e.Source = cutMarked(e.Source, 512)
	// The stack's first line repeats the message; the frames are few.
	e.Stack = cutMarked(e.Stack, budget/4)
	if len(e.Data) > 0 {
		e.Data = fitJSON(e.Data, budget-len(e.Message)-len(e.Stack))
	}
	return len(e.Message) + len(e.Source) + len(e.Stack) + len(e.Data)
}

// cutMarked returns s cut to at most n bytes on a rune boundary, ending
// with a note saying how long it was, or s itself when it fits.
func cutMarked(s string, n int) string {
	if len(s) <= n {
		return s
	}
	note := fmt.Sprintf("%s [cut: %d bytes, over the output limit]", ellipsis, len(s))
	if n <= len(note) {
		return cut(note, n)
	}
	return cut(s, n-len(note)) + note
}

// truncatedJSON marks where fitJSON cut a value.
const truncatedJSON = `"` + ellipsis + ` [truncated: over the output limit]"`

// fitJSON returns raw when it fits in max bytes, else a valid JSON value
// of at most max bytes keeping raw's beginning: open arrays and objects
// are closed, a cut string ends with an ellipsis, and the truncatedJSON
// marker stands where the rest was (as an element, as a "…" member, or as
// the value of a member). raw must be valid JSON.
func fitJSON(raw json.RawMessage, max int) json.RawMessage {
	if len(raw) <= max {
		return raw
	}
	if max < len(truncatedJSON)+16 || jsonscan.Depth(raw) > maxOutputDepth {
		return json.RawMessage(truncatedJSON)
	}
	var (
		out   []byte
		stack []jsonLevel
	)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	// reserve is what the marker and the closing brackets need.
	reserve := func() int { return len(stack) + len(truncatedJSON) + len(`,"…":`) + 1 }
	sep := func() []byte {
		if len(stack) == 0 {
			return nil
		}
		top := &stack[len(stack)-1]
		if top.obj && !top.wantKey {
			return nil // a member's value follows its key
		}
		if top.n > 0 {
			return []byte{','}
		}
		return nil
	}
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		top := &stack[len(stack)-1]
		top.n++
		if top.obj {
			top.wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			break // the end (raw is valid JSON)
		}
		var text []byte
		key := false
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				text = append(sep(), byte(t))
			default:
				out = append(out, byte(t))
				stack = stack[:len(stack)-1]
				valueDone()
				continue
			}
		case string:
			q := quoteJSON(t)
			if len(stack) > 0 && stack[len(stack)-1].obj && stack[len(stack)-1].wantKey {
				key = true
				text = append(append(sep(), q...), ':')
			} else {
				text = append(sep(), q...)
				if len(out)+len(text)+reserve() > max {
					// Cut the string itself to what room is left.
					room := max - len(out) - len(sep()) - reserve() - 2
					if room > 16 {
						out = append(append(out, sep()...), quoteJSON(cut(t, room/2)+ellipsis)...)
						valueDone()
						return closeJSON(out, stack, true)
					}
				}
			}
		case json.Number:
			text = append(sep(), t...)
		case bool:
			text = append(sep(), strconv.FormatBool(t)...)
		case nil:
			text = append(sep(), "null"...)
		}
		if len(out)+len(text)+reserve() > max {
			return closeJSON(out, stack, false)
		}
		out = append(out, text...)
		switch {
		case key:
			stack[len(stack)-1].wantKey = false
		case len(text) > 0 && (text[len(text)-1] == '{' || text[len(text)-1] == '['):
			stack = append(stack, jsonLevel{obj: text[len(text)-1] == '{', wantKey: text[len(text)-1] == '{'})
		default:
			valueDone()
		}
	}
	return closeJSON(out, stack, false)
}

// jsonLevel is an array or object fitJSON has opened.
type jsonLevel struct {
	obj     bool
	n       int  // members or elements written
	wantKey bool // an object's next token is a key
}

// closeJSON adds the truncation marker where out was cut (unless the cut
// string already shows it) and closes the open arrays and objects.
func closeJSON(out []byte, stack []jsonLevel, cutString bool) json.RawMessage {
	if len(stack) > 0 && !cutString {
		top := stack[len(stack)-1]
		switch {
		case top.obj && top.wantKey:
			if top.n > 0 {
				out = append(out, ',')
			}
			out = append(out, `"`+ellipsis+`":`+truncatedJSON...)
		case top.obj:
			out = append(out, truncatedJSON...)
		default:
			if top.n > 0 {
				out = append(out, ',')
			}
			out = append(out, truncatedJSON...)
		}
	}
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i].obj {
			out = append(out, '}')
		} else {
			out = append(out, ']')
		}
	}
	if len(out) == 0 {
		return json.RawMessage(truncatedJSON)
	}
	return out
}
