package sandbox

import "syscall"

// workerSysProcAttr puts a worker in its own process group (so a kill
// reaches everything it might start) and has the kernel kill it if the
// parent dies.
func workerSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup sends SIGKILL to the process group led by pid.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
