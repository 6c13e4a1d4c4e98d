//go:build !linux

package proc

// SetDataLimit is a no-op outside Linux: there the worker relies on the
// heap watchdog and the parent's deadline alone.
func SetDataLimit(int64) error { return nil }

// DataLimitSupported reports whether SetDataLimit enforces anything here.
const DataLimitSupported = false
