//go:build !race

package proc

// raceMemoryFactor is 1 in normal builds: the cap is never relaxed.
const raceMemoryFactor = 1
