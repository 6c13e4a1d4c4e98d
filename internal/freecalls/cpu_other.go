//go:build !linux

package freecalls

import "time"

// threadCPU is unknown here: Budget.Call falls back to wall time.
func threadCPU() time.Duration { return 0 }
