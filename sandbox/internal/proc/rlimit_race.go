//go:build race

package proc

// raceMemoryFactor relaxes memory caps in race-detector builds, whose
// runtime multiplies memory use several times. Normal builds keep the full
// cap (see rlimit_norace.go).
const raceMemoryFactor = 4
