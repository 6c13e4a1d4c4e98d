package sandbox

import "time"

// Default limits, used for every zero field of [Limits].
const (
	DefaultTimeout        = 10 * time.Second
	DefaultMemoryBytes    = 32 << 20
	DefaultMaxCalls       = 20
	DefaultMaxCodeBytes   = 10 << 10
	DefaultMaxOutputBytes = 100 << 10
)

// Limits bounds one execution. A zero field means the default listed with
// the Default constants.
type Limits struct {
	// Timeout is the wall-clock limit of one execution, host calls included.
	Timeout time.Duration `json:"timeout,omitempty"`
	// MemoryBytes caps the heap one execution may use. Only worker mode
	// enforces it in general; in both modes a single ArrayBuffer or typed
	// array larger than it is refused with MEMORY_LIMIT before it is
	// allocated.
	MemoryBytes int64 `json:"memoryBytes,omitempty"`
	// MaxCalls is the number of host calls one execution may make.
	MaxCalls int `json:"maxCalls,omitempty"`
	// MaxCodeBytes is the largest TypeScript source accepted.
	MaxCodeBytes int `json:"maxCodeBytes,omitempty"`
	// MaxOutputBytes caps console output plus the return value.
	MaxOutputBytes int `json:"maxOutputBytes,omitempty"`
}

// withDefaults returns l with every zero or negative field set to its default.
func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = DefaultMemoryBytes
	}
	if l.MaxCalls <= 0 {
		l.MaxCalls = DefaultMaxCalls
	}
	if l.MaxCodeBytes <= 0 {
		l.MaxCodeBytes = DefaultMaxCodeBytes
	}
	if l.MaxOutputBytes <= 0 {
		l.MaxOutputBytes = DefaultMaxOutputBytes
	}
	return l
}

// lower returns max with each field replaced by the matching field of o
// when that field is set and lower. An override can tighten a limit, never
// loosen it. max must already have its defaults applied.
func (max Limits) lower(o Limits) Limits {
	if o.Timeout > 0 && o.Timeout < max.Timeout {
		max.Timeout = o.Timeout
	}
	if o.MemoryBytes > 0 && o.MemoryBytes < max.MemoryBytes {
		max.MemoryBytes = o.MemoryBytes
	}
	if o.MaxCalls > 0 && o.MaxCalls < max.MaxCalls {
		max.MaxCalls = o.MaxCalls
	}
	if o.MaxCodeBytes > 0 && o.MaxCodeBytes < max.MaxCodeBytes {
		max.MaxCodeBytes = o.MaxCodeBytes
	}
	if o.MaxOutputBytes > 0 && o.MaxOutputBytes < max.MaxOutputBytes {
		max.MaxOutputBytes = o.MaxOutputBytes
	}
	return max
}
