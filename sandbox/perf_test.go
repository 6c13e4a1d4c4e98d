package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"
)

// fixtureHost answers each brakinglab function with the seed's recorded
// result from testdata/bench/fixture.json.
type fixtureHost map[string]json.RawMessage

func loadFixtureHost(tb testing.TB) (fixtureHost, string) {
	tb.Helper()
	src, err := os.ReadFile("testdata/bench/coaching.ts")
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/bench/fixture.json")
	if err != nil {
		tb.Fatal(err)
	}
	var byName map[string]json.RawMessage
	if err := json.Unmarshal(raw, &byName); err != nil {
		tb.Fatal(err)
	}
	h := fixtureHost{}
	for name, v := range byName {
		h["brakinglab."+name] = v
	}
	return h, string(src)
}

func (h fixtureHost) Functions() map[string][]string {
	var names []string
	for n := range h {
		names = append(names, n[len("brakinglab."):])
	}
	sort.Strings(names)
	return map[string][]string{"brakinglab": names}
}

func (h fixtureHost) Call(_ context.Context, name string, _ json.RawMessage) (json.RawMessage, error) {
	return h[name], nil
}

// TestCoachingScript checks that the benchmark script runs and returns what
// the fixture implies, so the benchmarks measure a working execution.
func TestCoachingScript(t *testing.T) {
	host, src := loadFixtureHost(t)
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		res := mustRun(t, sb, src, host)
		if len(res.Calls) != 4 || len(res.Logs) != 2 {
			t.Errorf("calls %d, logs %d", len(res.Calls), len(res.Logs))
		}
		var v struct {
			ReportID string `json:"reportId"`
			Corners  int    `json:"corners"`
		}
		if err := json.Unmarshal(res.Value, &v); err != nil || v.ReportID == "" || v.Corners == 0 {
			t.Errorf("value = %s (%v)", res.Value, err)
		}
	})
}

// benchRun runs src b.N times and reports the median execution time.
func benchRun(b *testing.B, sb *Sandbox, src string, host Host) {
	b.Helper()
	ctx := context.Background()
	if _, err := sb.Run(ctx, src, host); err != nil { // warm the compile cache
		b.Fatal(err)
	}
	times := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := sb.Run(ctx, src, host); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
}

// benchRunDistinct is benchRun with a different program every time: src
// followed by a comment holding the iteration number.
func benchRunDistinct(b *testing.B, sb *Sandbox, src string, host Host) {
	b.Helper()
	ctx := context.Background()
	if _, err := sb.Run(ctx, src, host); err != nil { // start the workers
		b.Fatal(err)
	}
	times := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		code := src + "\n// run " + strconv.Itoa(i)
		start := time.Now()
		if _, err := sb.Run(ctx, code, host); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
}

// BenchmarkInProcessCoachingDistinct is BenchmarkInProcessCoaching with
// code never seen before (see BenchmarkWorkerCoachingDistinct).
func BenchmarkInProcessCoachingDistinct(b *testing.B) {
	host, src := loadFixtureHost(b)
	benchRunDistinct(b, benchSandbox(b), src, host)
}

func benchSandbox(b *testing.B) *Sandbox {
	sb, err := New(&Options{Mode: ModeInProcess})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = sb.Close() })
	return sb
}

// BenchmarkInProcessEmpty measures the fixed cost of one execution: a
// fresh hardened runtime (made in the background while the previous
// execution runs, when it finishes in time), the event loop and the result.
func BenchmarkInProcessEmpty(b *testing.B) {
	benchRun(b, benchSandbox(b), "return 1", nil)
}

// BenchmarkInProcessOneCall measures one asynchronous host call.
func BenchmarkInProcessOneCall(b *testing.B) {
	benchRun(b, benchSandbox(b), "return await ns.f({ a: 1 })", echoHost("ns.f"))
}

// BenchmarkInProcessCoaching runs the seed's coaching script end to end.
func BenchmarkInProcessCoaching(b *testing.B) {
	host, src := loadFixtureHost(b)
	benchRun(b, benchSandbox(b), src, host)
}

// BenchmarkInProcessCoachingParallel runs the coaching script from
// GOMAXPROCS concurrent callers; ns/op is the inverse of throughput.
func BenchmarkInProcessCoachingParallel(b *testing.B) {
	host, src := loadFixtureHost(b)
	sb := benchSandbox(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := sb.Run(ctx, src, host); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkTranspile measures esbuild alone on the coaching script (the
// compile cache is bypassed).
func BenchmarkTranspile(b *testing.B) {
	_, src := loadFixtureHost(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := transpile(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTranspileFixedCost measures esbuild on the smallest program: what
// every never-seen execution pays for a transform whatever it holds (its
// bundler always links its own runtime file into the output).
func BenchmarkTranspileFixedCost(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := transpile("return 1"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileUncached measures transpile plus goja compilation.
func BenchmarkCompileUncached(b *testing.B) {
	_, src := loadFixtureHost(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c, err := transpile(src)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.compileJS(); err != nil {
			b.Fatal(err)
		}
	}
}
