//go:build !race

package sandbox

// raceMemoryFactor is 1 in normal builds: the cap is never relaxed.
const raceMemoryFactor = 1
