package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
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
	if o.truncated {
		o.logs = o.logs[:len(o.logs)-1] // the old marker
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
