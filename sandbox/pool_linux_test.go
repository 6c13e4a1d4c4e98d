package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pingHost prints the pid of the worker that calls it.
type pingHost struct{ p *pool }

func (h pingHost) Functions() map[string][]string { return map[string][]string{"t": {"ping"}} }

func (h pingHost) Call(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	fmt.Printf("worker-pid %d\n", h.p.busyPIDs()[0])
	return json.RawMessage("1"), nil
}

// TestHelperParent is the parent process of TestWorkerDiesWithParent: it
// only runs with SANDBOX_HELPER_PARENT=1 in its environment.
func TestHelperParent(t *testing.T) {
	if os.Getenv("SANDBOX_HELPER_PARENT") != "1" {
		t.Skip("helper process for TestWorkerDiesWithParent")
	}
	sb, err := New(&Options{PoolSize: 1, Limits: Limits{Timeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	// Busy in a builtin that ignores interrupts: only the kernel's
	// parent-death signal can stop this worker once we are killed.
	_, _ = sb.Run(context.Background(), "await t.ping(); return Array(2 ** 32 - 1).indexOf(1)", pingHost{sb.exec.(*pool)})
}

// TestWorkerDiesWithParent kills a parent process with SIGKILL while its
// worker is stuck in a long builtin: the worker must not outlive it. Two
// mechanisms ensure it: the worker's protocol loop exits on end of input
// while the script still runs, and on Linux the kernel's parent-death
// signal.
func TestWorkerDiesWithParent(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestHelperParent$", "-test.v")
	cmd.Env = append(os.Environ(), "SANDBOX_HELPER_PARENT=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "worker-pid "); ok {
			pid, _ = strconv.Atoi(rest)
			break
		}
	}
	if pid == 0 {
		t.Fatal("the helper never reported its worker")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	// The kernel delivers the signal at once; allow for a loaded machine.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if gone(pid) {
			return
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("worker %d outlived its parent", pid)
}

// gone reports whether process pid no longer exists or is a zombie.
func gone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the parenthesised command name.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// TestIdleWorkerReleasesMemory runs the coaching script as a busy worker
// would and checks that, once idle for idleReleaseDelay, the worker hands
// its free heap pages back to the kernel: its own (anonymous) resident
// memory falls by at least 2 MiB. The runtime alone keeps them: at
// GOGC=400 its heap goal is five times the live heap.
func TestIdleWorkerReleasesMemory(t *testing.T) {
	pid := coachedWorker(t)
	anon := func() int64 { return procField(t, pid, "status", "RssAnon:") }
	// Past the idle collection, before the release.
	time.Sleep(idleCollectDelay + idleReleaseDelay/2)
	collected := anon()
	deadline := time.Now().Add(idleReleaseDelay + 5*time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		if now := anon(); now < collected-2<<20 {
			t.Logf("worker anonymous memory: %d KiB idle, %d KiB once released", collected>>10, now>>10)
			return
		}
	}
	t.Fatalf("worker anonymous memory stayed at %d KiB (%d KiB before): free heap pages were not returned", anon()>>10, collected>>10)
}
