package proc

import "golang.org/x/sys/unix"

// SetDataLimit caps the process's data segment (RLIMIT_DATA), soft and hard,
// so no later code in the worker can raise it again. Since Linux 4.7 the
// cap covers private writable mappings, which is where the Go heap and
// goroutine stacks live: a single builtin allocating past it makes the Go
// runtime die with "out of memory" instead of taking the machine's memory.
func SetDataLimit(n int64) error {
	return unix.Setrlimit(unix.RLIMIT_DATA, &unix.Rlimit{Cur: uint64(n), Max: uint64(n)})
}

// DataLimitSupported reports whether SetDataLimit enforces anything here.
const DataLimitSupported = true
