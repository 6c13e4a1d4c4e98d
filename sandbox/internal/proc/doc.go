// Package proc is the operating-system side of the sandbox's worker
// processes: starting them (one spawn at a time, in their own process
// group, killed with the parent on Linux), the pipes they speak on, their
// kernel name, RLIMIT_DATA, peak RSS from rusage, and the heap watchdog
// that enforces the memory limit inside a worker. It holds no sandbox
// policy: package sandbox decides when and with which numbers to use it.
package proc
