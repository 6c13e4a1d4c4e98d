//go:build unix && !linux

package sandbox

import "syscall"

// workerSysProcAttr puts a worker in its own process group so a kill
// reaches everything it might start.
func workerSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to the process group led by pid.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
