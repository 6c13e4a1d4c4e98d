package sandbox

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/sandbox/internal/proc"
)

// Worker-mode benchmarks; the in-process ones and the fixture host live in
// perf_test.go. Each reports p50-ms (median per-execution time); the
// parallel one reports execs/s with GOMAXPROCS concurrent callers.
//
//	go test -run '^$' -bench 'Worker|InProcessCoaching$|Transpile' -benchtime 300x ./sandbox/

func workerSandbox(b *testing.B) *Sandbox {
	b.Helper()
	sb, err := New(nil) // worker mode is the default
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = sb.Close() })
	return sb
}

// BenchmarkWorkerCoaching runs the seed's coaching script end to end in a
// worker process, every limit enforced.
func BenchmarkWorkerCoaching(b *testing.B) {
	host, src := loadFixtureHost(b)
	benchRun(b, workerSandbox(b), src, host)
}

// BenchmarkWorkerCoachingDistinct runs the coaching script as code the
// sandbox has never seen: each execution differs by a trailing comment, so
// every one is transpiled and compiled. This is the realistic workload.
func BenchmarkWorkerCoachingDistinct(b *testing.B) {
	host, src := loadFixtureHost(b)
	benchRunDistinct(b, workerSandbox(b), src, host)
}

// BenchmarkWorkerEmpty is the fixed cost of one worker execution: the
// round trip over the pipe, a fresh hardened runtime (made ahead, and on
// the critical path when executions without host calls come back to back),
// the watchdog.
func BenchmarkWorkerEmpty(b *testing.B) {
	benchRun(b, workerSandbox(b), "return 1", nil)
}

// BenchmarkWorkerOneCall is one host call relayed from the worker to the
// parent and back.
func BenchmarkWorkerOneCall(b *testing.B) {
	benchRun(b, workerSandbox(b), "return await ns.f({ a: 1 })", echoHost("ns.f"))
}

// BenchmarkWorkerCoachingParallel runs the coaching script from GOMAXPROCS
// concurrent callers on a pool of the default size (GOMAXPROCS workers).
func BenchmarkWorkerCoachingParallel(b *testing.B) {
	host, src := loadFixtureHost(b)
	benchCallers(b, workerSandbox(b), func(int64) string { return src }, host, runtime.GOMAXPROCS(0))
}

// BenchmarkWorkerSpawn is the cost of starting one worker process up to its
// hello; the pool pays it in the background after a breach.
func BenchmarkWorkerSpawn(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	setup := setupMsg{Version: protocolVersion, DataHeadroom: proc.DataHeadroom(DefaultMemoryBytes), MemoryBytes: DefaultMemoryBytes}
	for b.Loop() {
		w, err := startWorker(exe, setup)
		if err != nil {
			b.Fatal(err)
		}
		w.kill()
	}
}

// coachedWorker starts a one-worker sandbox, closed when tb ends, runs the
// coaching script on it twenty times, as a busy worker would, and returns
// the worker's pid.
func coachedWorker(tb testing.TB) int {
	tb.Helper()
	host, src := loadFixtureHost(tb)
	sb, err := New(&Options{PoolSize: 1})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sb.Close() })
	for range 20 {
		if _, err := sb.Run(context.Background(), src, host); err != nil {
			tb.Fatal(err)
		}
	}
	// The worker that ran the script, not the spare started beside it.
	p := sb.exec.(*pool)
	p.mu.Lock()
	defer p.mu.Unlock()
	var ran *workerProc
	for w := range p.live {
		if ran == nil || w.uses > ran.uses {
			ran = w
		}
	}
	return ran.pid
}

// BenchmarkWorkerIdleRSS reports the resident memory of a worker that has
// run the coaching script twenty times and sat idle long enough to return
// its free heap pages (idleReleaseDelay).
func BenchmarkWorkerIdleRSS(b *testing.B) {
	pid := coachedWorker(b)
	time.Sleep(idleReleaseDelay + 250*time.Millisecond)
	var rss int64
	for b.Loop() {
		rss = procRSS(b, pid)
	}
	b.ReportMetric(float64(rss)/(1<<20), "idle-worker-RSS-MiB")
	// RSS counts every resident page of the binary the worker maps, though
	// the parent and the other workers share them; PSS divides shared
	// pages among their users, and anonymous memory is the worker's own.
	b.ReportMetric(float64(procField(b, pid, "smaps_rollup", "Pss:"))/(1<<20), "idle-worker-PSS-MiB")
	b.ReportMetric(float64(procField(b, pid, "status", "RssAnon:"))/(1<<20), "idle-worker-anon-MiB")
}

// procField returns the kB figure of the line starting with field in
// /proc/pid/file, in bytes.
func procField(tb testing.TB, pid int, file, field string) int64 {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		tb.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return kb << 10
		}
	}
	tb.Fatalf("no %s line in %s", field, file)
	return 0
}

// procRSS returns the VmRSS of process pid.
func procRSS(tb testing.TB, pid int) int64 {
	tb.Helper()
	return procField(tb, pid, "status", "VmRSS:")
}

// BenchmarkWorkerCoachingDistinctParallel runs never-seen coaching scripts
// from 4 concurrent callers on the default pool and reports execs/s and
// p50-ms: issue 29 compares it with BenchmarkInProcessCoachingDistinctParallel.
func BenchmarkWorkerCoachingDistinctParallel(b *testing.B) {
	host, src := loadFixtureHost(b)
	benchDistinctCallers(b, workerSandbox(b), src, host, 4)
}

// BenchmarkInProcessCoachingDistinctParallel is
// BenchmarkWorkerCoachingDistinctParallel in process.
func BenchmarkInProcessCoachingDistinctParallel(b *testing.B) {
	host, src := loadFixtureHost(b)
	benchDistinctCallers(b, benchSandbox(b), src, host, 4)
}

// benchDistinctCallers runs b.N never-seen variants of src from callers
// goroutines and reports executions per second and the p50.
func benchDistinctCallers(b *testing.B, sb *Sandbox, src string, host Host, callers int) {
	benchCallers(b, sb, func(n int64) string { return src + "\n// run " + strconv.FormatInt(n, 10) }, host, callers)
}

// benchCallers runs code(1) to code(b.N) from callers goroutines, after
// starting every worker, and reports executions per second and the p50.
func benchCallers(b *testing.B, sb *Sandbox, code func(n int64) string, host Host, callers int) {
	ctx := context.Background()
	var warm sync.WaitGroup
	for i := range max(callers, 4) { // start every worker (and the spare) before measuring
		warm.Add(1)
		go func() {
			defer warm.Done()
			_, _ = sb.Run(ctx, code(-int64(i)-1), host)
		}()
	}
	warm.Wait()
	var (
		next  atomic.Int64
		mu    sync.Mutex
		times []time.Duration
		wg    sync.WaitGroup
	)
	b.ResetTimer()
	start := time.Now()
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local []time.Duration
			for {
				n := next.Add(1)
				if n > int64(b.N) {
					break
				}
				t0 := time.Now()
				if _, err := sb.Run(ctx, code(n), host); err != nil {
					b.Error(err)
					return
				}
				local = append(local, time.Since(t0))
			}
			mu.Lock()
			times = append(times, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "execs/s")
	slices.Sort(times)
	if len(times) > 0 {
		b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	}
}
