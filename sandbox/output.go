package sandbox

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// output accumulates console output and the return value under the
// MaxOutputBytes cap.
type output struct {
	max       int
	used      int
	logs      []LogEntry
	truncated bool
	dropped   int // log entries dropped after truncation
}

func truncationMarker(max int) string {
	return fmt.Sprintf("[output truncated: over the %d-byte output limit. Log less or return less: filter, aggregate or slice the data inside the script and print only what you need.]", max)
}

// log appends one console entry, cutting it and adding the marker once the
// cap is reached.
func (o *output) log(level, msg string) {
	if o.truncated {
		o.dropped++
		return
	}
	n := len(msg) + 1
	if o.used+n <= o.max {
		o.used += n
		o.logs = append(o.logs, LogEntry{Level: level, Message: msg})
		return
	}
	room := o.max - o.used
	if room > 0 {
		o.logs = append(o.logs, LogEntry{Level: level, Message: cut(msg, room) + "…"})
	}
	o.used = o.max
	o.truncated = true
	o.logs = append(o.logs, LogEntry{Level: "warn", Message: truncationMarker(o.max)})
}

// value returns the return value's JSON, or, when it does not fit in what
// the logs left of the cap, a JSON string holding its beginning and the
// truncation marker.
func (o *output) value(js string) json.RawMessage {
	if o.used+len(js) <= o.max {
		o.used += len(js)
		return json.RawMessage(js)
	}
	room := o.max - o.used
	if room < 0 {
		room = 0
	}
	o.truncated = true
	s := cut(js, room) + "… " + fmt.Sprintf("[return value truncated: it was %d bytes of JSON, over the %d-byte output limit. Return less: filter, aggregate or slice the data inside the script.]", len(js), o.max)
	b, _ := json.Marshal(s)
	return b
}

// cut returns the longest prefix of s of at most n bytes that ends on a
// rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
