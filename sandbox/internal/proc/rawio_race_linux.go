//go:build race

package proc

import "sync"

// ioSync stands for the ordering a pipe gives between a write and the read
// that sees its bytes. The race detector learns of it from package
// syscall's Read and Write, which PipeIO's raw system calls bypass: without
// this, whatever a goroutine wrote before sending a frame would look
// unordered with what the goroutine that read the frame does next.
var ioSync sync.Mutex

// beforeWrite is called before bytes are written to a pipe.
func beforeWrite() { ioSync.Lock(); ioSync.Unlock() }

// afterRead is called after bytes were read from a pipe.
func afterRead() { ioSync.Lock(); ioSync.Unlock() }
