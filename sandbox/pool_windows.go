package sandbox

import "syscall"

// workerSysProcAttr has no process-group setting on Windows; the worker
// is killed by its handle (Process.Kill).
func workerSysProcAttr() *syscall.SysProcAttr { return nil }

// killGroup is a no-op on Windows: kill falls back to Process.Kill.
func killGroup(int) {}
