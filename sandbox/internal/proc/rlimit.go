package proc

import (
	"bytes"
	"os"
	"strconv"
)

// Sizing the kernel cap (RLIMIT_DATA) of a worker.
//
// The cap is the worker's own data size right after start (VmData: Go's
// arena reservations, and in cgo builds one 8 MiB pthread stack per thread)
// plus a headroom that scales with the memory limit. Measuring VmData in the
// worker makes the cap fit pure-Go, cgo and race builds alike, which start
// at about 80 MiB, 120 MiB and 430 MiB of VmData on linux/amd64.
//
// The heap watchdog stops ordinary scripts at the memory limit; the cap is
// the backstop for single builtin calls that allocate past any watchdog
// ("x".repeat(2**30) asks for 1 GiB in one step): the worker then dies with
// "fatal error: runtime: out of memory" and the parent reports
// MEMORY_LIMIT. A cgo build that starts many threads uses up the headroom
// faster (each new thread's stack counts), so such a worker may die early on
// memory-hungry scripts; that is reported as MEMORY_LIMIT too and the next
// execution gets a fresh worker.

// What the cap does not do. Go grows its heap by reserving address space
// (PROT_NONE, not data) and then mapping it read-write over the
// reservation (MAP_FIXED), and Linux 6.x charges such a mapping against
// RLIMIT_DATA less the pages it replaces, the reservation included. The
// heap itself can therefore grow past the cap: with a cap of 167 MiB,
// make([]byte, 8e8) succeeded and VmData read 816 MiB. The cap then stops
// the next fresh mapping (the collector's mark bits), which kills most
// such workers, but not one that had already collected: there an
// untouched 800 MB typed array could be allocated, answered and dropped
// between two samples of the heap watchdog (issue 40, two of eight
// full-suite runs). The sandbox refuses such buffers before goja
// allocates them (sandbox/allocguard.go); allocations that are touched
// take long enough for the watchdog. Capping RLIMIT_AS over the start-up
// VmSize does stop the reservation, but ordinary workers then died
// (arena reservations of 64 MiB, thread stacks), so it is not applied.

// DataHeadroom returns the bytes a worker may map beyond its start-up data
// size when the memory limit is mem.
func DataHeadroom(mem int64) int64 {
	return (64<<20 + 2*mem) * raceMemoryFactor
}

// VMData returns the process's current data size (VmData in
// /proc/self/status), or 0 when it cannot be read.
func VMData() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(b) {
		rest, ok := bytes.CutPrefix(line, []byte("VmData:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}
