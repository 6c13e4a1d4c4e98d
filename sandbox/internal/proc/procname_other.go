//go:build !linux

package proc

// NameWorker does nothing here: only Linux lets a process rename itself.
func NameWorker() {}
