package proc

import "syscall"

// SysProcAttr puts a worker in its own process group (so a kill
// reaches everything it might start) and has the kernel kill it if the
// parent dies.
func SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// KillGroup sends SIGKILL to the process group led by pid.
func KillGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
