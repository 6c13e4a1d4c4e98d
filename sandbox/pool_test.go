//go:build unix

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/internal/leakcheck"
)

// testHost is the host the worker tests bind as t.*.
type testHost struct {
	barrier *sync.WaitGroup // echo waits on it when set
}

func (h *testHost) Functions() map[string][]string {
	return map[string][]string{"t": {"echo", "fail", "panic", "slow", "big", "wait", "missing"}}
}

type issuesErr struct{}

func (issuesErr) Error() string { return "Validation failed" }
func (issuesErr) MarshalJSON() ([]byte, error) {
	return []byte(`{"error":"Validation failed","issues":[{"path":["lap"],"message":"must be positive"}]}`), nil
}

func (h *testHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	switch name {
	case "t.echo":
		return args, nil
	case "t.fail":
		return nil, issuesErr{}
	case "t.panic":
		panic("host bug")
	case "t.slow":
		<-ctx.Done()
		return nil, ctx.Err()
	case "t.missing":
		// Like a not-found error that echoes the identifier it was given.
		return nil, fmt.Errorf("no record matches %s", args)
	case "t.big":
		return json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`), nil
	case "t.wait":
		// All callers must be in flight at once to pass the barrier.
		h.barrier.Done()
		done := make(chan struct{})
		go func() { h.barrier.Wait(); close(done) }()
		select {
		case <-done:
			return args, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, fmt.Errorf("no function %s", name)
}

func newWorkerSandbox(t testing.TB, lim Limits, size int) (*Sandbox, *pool) {
	t.Helper()
	sb, err := New(&Options{Limits: lim, PoolSize: size})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := sb.exec.(*pool)
	if !ok {
		t.Fatalf("default mode runs %T, want the worker pool", sb.exec)
	}
	t.Cleanup(func() { sb.Close() })
	return sb, p
}

func TestWorkerRunsScripts(t *testing.T) {
	sb, _ := newWorkerSandbox(t, Limits{}, 1)
	ctx := context.Background()
	for _, tc := range []struct {
		name, src string
		value     string
		kind      Kind
	}{
		{"return", "return 1 + 1", "2", ""},
		{"host call", `return await t.echo({a: [1, "x"]})`, `{"a":[1,"x"]}`, ""},
		{"host error issues", `try { await t.fail({}) } catch (e: any) { return [e.message, e.issues[0].path[0]] }`, `["Validation failed","lap"]`, ""},
		{"runtime error", "\n\nnull.x", "", KindRuntime},
		{"syntax", "let = ;", "", KindSyntax},
		{"console", `console.log("hi", {a: 1}); return null`, "null", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := sb.Run(ctx, tc.src, &testHost{})
			if tc.kind != "" {
				var e *Error
				if !errors.As(err, &e) || e.Kind != tc.kind {
					t.Fatalf("err = %v, want kind %s", err, tc.kind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Value) != tc.value {
				t.Fatalf("value %s, want %s", res.Value, tc.value)
			}
		})
	}
}

func TestWorkerConcurrentHostCalls(t *testing.T) {
	sb, _ := newWorkerSandbox(t, Limits{}, 1)
	var barrier sync.WaitGroup
	barrier.Add(3)
	res, err := sb.Run(context.Background(),
		`return await Promise.all([t.wait(1), t.wait(2), t.wait(3)])`, &testHost{barrier: &barrier})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Value) != "[1,2,3]" {
		t.Fatalf("value %s", res.Value)
	}
}

// TestWorkerCancel cancels executions in a host call, in a tight loop and
// inside a builtin that ignores interrupts (the worker is then killed after
// a short grace): each ends with CANCELLED and the pool keeps working.
func TestWorkerCancel(t *testing.T) {
	sb, _ := newWorkerSandbox(t, Limits{}, 1)
	for _, src := range []string{
		`await t.block({}); return 1`,
		`while (true) {}`,
		`return Array(2 ** 32 - 1).indexOf(1)`,
	} {
		t.Run(src, func(t *testing.T) {
			host := &enteredHost{entered: make(chan struct{}, 1)}
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				if strings.Contains(src, "t.block") {
					<-host.entered
				} else {
					time.Sleep(100 * time.Millisecond)
				}
				cancel()
			}()
			_, err := sb.Run(ctx, src, host)
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindCancelled {
				t.Fatalf("err = %v, want CANCELLED", err)
			}
			if res, err := sb.Run(context.Background(), "return 5", nil); err != nil || string(res.Value) != "5" {
				t.Fatalf("after cancel: %v %v", res, err)
			}
		})
	}
}

func TestWorkerCloseLeavesNoProcess(t *testing.T) {
	sb, p := newWorkerSandbox(t, Limits{}, 2)
	for range 3 {
		if _, err := sb.Run(context.Background(), "return 1", &testHost{}); err != nil {
			t.Fatal(err)
		}
	}
	pids := p.pids()
	if len(pids) == 0 {
		t.Fatal("no live workers after executions")
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("worker %d still exists after Close (kill 0: %v)", pid, err)
		}
	}
	if _, err := sb.Run(context.Background(), "return 1", &testHost{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Run after Close: %v", err)
	}
}

func TestWorkerReuseAndReplacement(t *testing.T) {
	sb, p := newWorkerSandbox(t, Limits{Timeout: 2 * time.Second}, 1)
	ctx := context.Background()
	// Besides the worker that serves, the pool may start the reserve's
	// spare (prewarmSpare), so a clean execution leaves one or two idle
	// workers; the one that served must be among them.
	pidsAfter := func(src string) []int {
		t.Helper()
		_, _ = sb.Run(ctx, src, &testHost{})
		live, idle := p.stats()
		if live < 1 || live > 1+admissionReserve || idle != live {
			t.Fatalf("after %q: %d live, %d idle workers, want 1 to %d, all idle", src, live, idle, 1+admissionReserve)
		}
		return p.pids()
	}
	first := pidsAfter("return 1")
	for _, src := range []string{"return 2", "throw new Error('x')", "let = ;", `await Promise.all(Array.from({length: 25}, () => t.echo(1)))`} {
		if pids := pidsAfter(src); !slices.Contains(pids, first[0]) {
			t.Fatalf("a clean execution (%q) replaced worker %d (live now: %v)", src, first[0], pids)
		}
	}
	for _, src := range []string{"while (true) {}", `const a: any[] = []; while (true) a.push([1, 2, 3])`, `"x".repeat(2 ** 30)`} {
		before := p.pids()
		// The replacement is started in the background; wait for it.
		_, _ = sb.Run(ctx, src, &testHost{})
		if _, err := sb.Run(ctx, "return 1", &testHost{}); err != nil {
			t.Fatal(err)
		}
		after := p.pids()
		kept := 0
		for _, pid := range before {
			if slices.Contains(after, pid) {
				kept++
			}
		}
		if kept == len(before) {
			t.Fatalf("no worker of %v was replaced after serving %q (live now: %v)", before, src, after)
		}
	}
}

// TestWorkerIsolation checks what a worker process is given: an empty
// environment apart from the marker, its own process group and the kernel
// data cap.
func TestWorkerIsolation(t *testing.T) {
	t.Setenv("SANDBOX_TEST_SECRET", "hunter2")
	sb, p := newWorkerSandbox(t, Limits{}, 1)
	if _, err := sb.Run(context.Background(), "return 1", &testHost{}); err != nil {
		t.Fatal(err)
	}
	pid := p.pids()[0]
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	if got := strings.Trim(string(env), "\x00"); got != workerEnv+"=1" {
		t.Errorf("worker environment = %q, want only the marker", got)
	}
	if pgid, err := syscall.Getpgid(pid); err != nil || pgid != pid {
		t.Errorf("worker process group %d (%v), want its own (%d)", pgid, err, pid)
	}
	limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(limits), "\n") {
		if strings.HasPrefix(line, "Max data size") {
			f := strings.Fields(line)
			if f[3] == "unlimited" || f[4] == "unlimited" {
				t.Errorf("worker RLIMIT_DATA not set: %q", line)
			}
			t.Logf("%s", line)
		}
	}
}

func TestWorkerPath(t *testing.T) {
	sb, err := New(&Options{WorkerPath: "/nonexistent/worker"})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	_, err = sb.Run(context.Background(), "return 1", &testHost{})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindInternal {
		t.Fatalf("err = %v, want INTERNAL", err)
	}

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb2, err := New(&Options{WorkerPath: exe})
	if err != nil {
		t.Fatal(err)
	}
	defer sb2.Close()
	if res, err := sb2.Run(context.Background(), "return 3", &testHost{}); err != nil || string(res.Value) != "3" {
		t.Fatalf("explicit worker path: %v %v", res, err)
	}

	// A worker binary speaking another protocol version refuses to start.
	_, err = startWorker(exe, setupMsg{Version: protocolVersion + 1})
	if err == nil || !strings.Contains(err.Error(), "protocol version") {
		t.Fatalf("version mismatch: %v", err)
	}
}

// TestWorkerNoLeaks runs clean, failing, timed-out and cancelled
// executions, closes the sandbox and checks that no goroutine and no worker
// process is left.
func TestWorkerNoLeaks(t *testing.T) {
	defer leakcheck.VerifyNone(t, leakcheck.IgnoreCurrent())
	sb, err := New(&Options{Limits: Limits{Timeout: 500 * time.Millisecond}, PoolSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	p := sb.exec.(*pool)
	ctx := context.Background()
	var wg sync.WaitGroup
	for _, src := range []string{
		"return 1",
		`return await Promise.all([t.echo(1), t.echo(2)])`,
		"while (true) {}",
		`await t.slow({})`,
		`Array(2 ** 32 - 1).indexOf(1)`,
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = sb.Run(ctx, src, &testHost{})
		}()
	}
	cctx, cancel := context.WithCancel(ctx)
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = sb.Run(cctx, `await t.slow({})`, &testHost{})
	}()
	cancel()
	wg.Wait()
	pids := p.pids()
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("worker %d still exists after Close", pid)
		}
	}
}

func TestLooksLikeOOM(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sig    syscall.Signal
		stderr string
		want   bool
	}{
		{"go out of memory", 0, "fatal error: runtime: out of memory\n\ngoroutine 1 [running]:\n", true},
		{"stack overflow", 0, "runtime: goroutine stack exceeds 67108864-byte limit\nfatal error: stack overflow\n", true},
		{"cgo thread", 0, "runtime/cgo: pthread_create failed: Resource temporarily unavailable\nSIGABRT: abort\n", true},
		{"killed from outside", syscall.SIGKILL, "", true},
		{"gc fault", 0, "SIGSEGV: segmentation violation\nPC=0x4399fd m=3 sigcode=1 addr=0x0\n\ngoroutine 0 gp=0x26e5 m=3 [idle]:\nruntime.(*spanQueue).tryDrain(0x7f4f00000400?)\n", true},
		{"fault in user code", 0, "SIGSEGV: segmentation violation\nPC=0x1 m=0 sigcode=1\n\ngoroutine 7 [running]:\nmain.bug(0x0)\n", false},
		{"panic", 0, "panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n", false},
		{"clean exit", 0, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := looksLikeOOM(tc.sig, tc.stderr); got != tc.want {
				t.Fatalf("looksLikeOOM = %v, want %v", got, tc.want)
			}
		})
	}
}

// enteredHost signals each call it receives, then blocks until the
// execution ends.
type enteredHost struct{ entered chan struct{} }

func (h *enteredHost) Functions() map[string][]string { return map[string][]string{"t": {"block"}} }

func (h *enteredHost) Call(ctx context.Context, _ string, _ json.RawMessage) (json.RawMessage, error) {
	h.entered <- struct{}{}
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestWorkerDeath kills a worker from outside while its script waits on a
// host call: an unexplained SIGKILL is what the kernel's OOM killer sends,
// anything else is an internal failure; either way the pool recovers.
func TestWorkerDeath(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		want Kind
	}{
		{syscall.SIGKILL, KindMemoryLimit},
		{syscall.SIGTERM, KindInternal},
		{syscall.SIGQUIT, KindInternal},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			sb, p := newWorkerSandbox(t, Limits{}, 1)
			host := &enteredHost{entered: make(chan struct{}, 1)}
			errc := make(chan error, 1)
			go func() {
				_, err := sb.Run(context.Background(), "await t.block({})", host)
				errc <- err
			}()
			<-host.entered
			pids := p.busyPIDs()
			if len(pids) != 1 {
				t.Fatalf("%d busy workers, want 1", len(pids))
			}
			if err := syscall.Kill(pids[0], tc.sig); err != nil {
				t.Fatal(err)
			}
			var e *Error
			if err := <-errc; !errors.As(err, &e) || e.Kind != tc.want {
				t.Fatalf("err = %v, want kind %s", err, tc.want)
			}
			if res, err := sb.Run(context.Background(), "return 7", nil); err != nil || string(res.Value) != "7" {
				t.Fatalf("after the death: %v %v", res, err)
			}
		})
	}
}

// TestWorkerMemoryOverride lowers the memory limit for one execution: the
// same script passes with the sandbox's limit and breaches the lower one.
func TestWorkerMemoryOverride(t *testing.T) {
	sb, _ := newWorkerSandbox(t, Limits{}, 1)
	src := `const a: string[] = []; for (let i = 0; i < 12000; i++) a.push("x".repeat(1000) + i); return a.length`
	res, err := sb.Run(context.Background(), src, nil)
	if err != nil || string(res.Value) != "12000" {
		t.Fatalf("with the default limit: %v %v", res, err)
	}
	_, err = sb.RunWith(context.Background(), src, nil, &RunOptions{Limits: Limits{MemoryBytes: 4 << 20}})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindMemoryLimit || !strings.Contains(e.Message, "4 MiB") {
		t.Fatalf("with a 4 MiB limit: %v", err)
	}
}

// TestWorkerDiedIdle kills idle workers from outside: the next execution
// runs on a fresh worker, with no error (nothing of it had started).
func TestWorkerDiedIdle(t *testing.T) {
	sb, p := newWorkerSandbox(t, Limits{}, 1)
	for i := range 5 {
		if _, err := sb.Run(context.Background(), "return 1", nil); err != nil {
			t.Fatal(err)
		}
		for _, pid := range p.pids() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if res, err := sb.Run(context.Background(), "return 2", nil); err != nil || string(res.Value) != "2" {
			t.Fatalf("round %d, after the idle worker was killed: %v %v", i, res, err)
		}
	}
}
