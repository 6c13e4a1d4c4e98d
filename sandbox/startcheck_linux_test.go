package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestWorkerProcessName: ps shows a worker as the host binary's name plus
// the worker marker, not as /proc/self/exe.
func TestWorkerProcessName(t *testing.T) {
	sb, p := newWorkerSandbox(t, Limits{}, 1)
	if _, err := sb.Run(context.Background(), "return 1", nil); err != nil {
		t.Fatal(err)
	}
	pids := p.pids()
	if len(pids) == 0 {
		t.Fatal("no live worker after an execution")
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pids[0]) + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.TrimRight(string(cmdline), "\x00")
	want := filepath.Base(os.Args[0]) + " [codemode sandbox worker]"
	if got != want {
		t.Fatalf("worker argv %q, want %q", got, want)
	}
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(pids[0]) + "/comm")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(comm)); got != "codemode-worker" {
		t.Fatalf("worker comm %q, want codemode-worker", got)
	}
}

// TestCheckWorker: a binary that cannot start as a worker is reported
// with its stderr; a good one passes; in process there is nothing to check.
func TestCheckWorker(t *testing.T) {
	sb, _ := newWorkerSandbox(t, Limits{}, 1)
	if err := sb.CheckWorker(); err != nil {
		t.Fatalf("CheckWorker on the test binary: %v", err)
	}

	script := filepath.Join(t.TempDir(), "worker.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'config: DATABASE_URL is not set' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	bad, err := New(&Options{WorkerPath: script, PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	err = bad.CheckWorker()
	if !errors.Is(err, ErrWorkerStart) || !strings.Contains(err.Error(), "config: DATABASE_URL is not set") {
		t.Fatalf("CheckWorker = %v, want ErrWorkerStart quoting the worker's stderr", err)
	}

	inproc, err := New(&Options{Mode: ModeInProcess})
	if err != nil {
		t.Fatal(err)
	}
	defer inproc.Close()
	if err := inproc.CheckWorker(); err != nil {
		t.Fatalf("CheckWorker in process: %v", err)
	}
}
