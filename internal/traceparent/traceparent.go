// Package traceparent reads the trace id of a W3C Trace Context
// traceparent (https://www.w3.org/TR/trace-context/#traceparent-header),
// so that audit events join a client's trace without OpenTelemetry in the
// core module.
package traceparent

import "strings"

// TraceID returns the trace id of tp (version-traceid-parentid-flags), if
// tp is a valid traceparent: version ff and all-zero ids are invalid, and
// version 00 has exactly four fields (later versions may add more).
func TraceID(tp string) (string, bool) {
	parts := strings.Split(tp, "-")
	if len(parts) < 4 || len(parts[0]) != 2 || parts[0] == "ff" || !lowerHex(parts[0]) ||
		len(parts[1]) != 32 || !lowerHex(parts[1]) || parts[1] == strings.Repeat("0", 32) ||
		len(parts[2]) != 16 || !lowerHex(parts[2]) || parts[2] == strings.Repeat("0", 16) ||
		len(parts[3]) != 2 || !lowerHex(parts[3]) || (parts[0] == "00" && len(parts) != 4) {
		return "", false
	}
	return parts[1], true
}

func lowerHex(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
