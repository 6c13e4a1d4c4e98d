package proc

import "syscall"

// SysProcAttr has no process-group setting on Windows; the worker
// is killed by its handle (Process.Kill).
func SysProcAttr() *syscall.SysProcAttr { return nil }

// KillGroup is a no-op on Windows: kill falls back to Process.Kill.
func KillGroup(int) {}
