package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrWorkerStart is wrapped by [Sandbox.CheckWorker] when a worker process
// cannot start.
var ErrWorkerStart = errors.New("sandbox: a worker process cannot start")

// CheckWorker starts one worker process, waits for its hello and stops it
// again, so an embedding service learns at start-up rather than at its
// first execution that its binary cannot serve as a worker. The commonest
// cause is a package initialiser of the host that fails in the worker's
// empty environment (a required environment variable, a database
// connection): workers re-execute the host binary, and initialisers of
// packages that do not import this one may run before its worker hook.
// The error wraps [ErrWorkerStart] and quotes the worker's stderr. In
// [ModeInProcess] CheckWorker does nothing.
func (s *Sandbox) CheckWorker() error {
	p, ok := s.exec.(*pool)
	if !ok {
		return nil
	}
	w, err := startWorker(p.path, p.setup())
	if err != nil {
		return fmt.Errorf("%w: %w", ErrWorkerStart, err)
	}
	w.kill()
	return nil
}

// workerMarker ends a worker's argv[0], so ps shows which processes are
// sandbox workers of which host.
const workerMarker = "[codemode sandbox worker]"

// workerArgv0 is the name a worker process shows in ps: the host binary's
// name followed by workerMarker.
func workerArgv0() string {
	name := filepath.Base(os.Args[0])
	if name == "" || name == "." || name == string(filepath.Separator) {
		name = "codemode"
	}
	return strings.TrimSuffix(name, ".exe") + " " + workerMarker
}
