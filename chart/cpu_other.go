//go:build !linux

package chart

import "time"

// threadCPU is unknown here: Budget falls back to wall time.
func threadCPU() time.Duration { return 0 }
