package proc

import (
	"os/exec"
	"runtime"
	"sync"
)

// Worker processes are started from one goroutine locked to its OS thread.
// On Linux a worker asks the kernel to kill it when its parent dies
// (Pdeathsig), and "parent" means the thread that forked it: if that were
// an ordinary runtime thread, it could exit while the worker runs (the
// runtime ends a thread when a goroutine locked to it exits), killing a
// healthy worker mid-execution. The spawner's thread lives while any worker
// it started does, then exits with it.
var spawner struct {
	mu   sync.Mutex
	reqs chan spawnReq
	live int // workers started and not yet reaped, plus starts in flight
}

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

// StartCmd starts cmd from the spawner thread. On success the caller must
// call ReleaseSpawn once the process has been reaped.
func StartCmd(cmd *exec.Cmd) error {
	spawner.mu.Lock()
	if spawner.reqs == nil {
		spawner.reqs = make(chan spawnReq)
		go spawnLoop(spawner.reqs)
	}
	spawner.live++
	reqs := spawner.reqs
	spawner.mu.Unlock()

	done := make(chan error, 1)
	reqs <- spawnReq{cmd: cmd, done: done}
	err := <-done
	if err != nil {
		ReleaseSpawn()
	}
	return err
}

// ReleaseSpawn records that a worker was reaped; the spawner goroutine and
// its thread end with the last one.
func ReleaseSpawn() {
	spawner.mu.Lock()
	defer spawner.mu.Unlock()
	spawner.live--
	if spawner.live == 0 {
		close(spawner.reqs)
		spawner.reqs = nil
	}
}

func spawnLoop(reqs <-chan spawnReq) {
	// Never unlocked: when this goroutine returns, its thread exits, and
	// by then no worker it started is alive.
	runtime.LockOSThread()
	for r := range reqs {
		r.done <- r.cmd.Start()
	}
}
