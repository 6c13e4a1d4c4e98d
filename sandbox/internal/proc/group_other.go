//go:build unix && !linux

package proc

import "syscall"

// SysProcAttr puts a worker in its own process group so a kill
// reaches everything it might start.
func SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// KillGroup sends SIGKILL to the process group led by pid.
func KillGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
