//go:build !linux

package sandbox

// setDataLimit is a no-op outside Linux: there the worker relies on the
// heap watchdog and the parent's deadline alone.
func setDataLimit(int64) error { return nil }

// dataLimitSupported reports whether setDataLimit enforces anything here.
const dataLimitSupported = false
