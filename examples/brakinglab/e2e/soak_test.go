package e2e

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// soakFor is how long TestSoak drives load. CI runs the default; a long run
// is `go test ./examples/brakinglab/e2e -run TestSoak -soak 10m -timeout 20m`.
var soakFor = flag.Duration("soak", 20*time.Second, "how long TestSoak drives load against BrakingLab")

// Bounds on what may grow during a soak. They are checked after the load
// stops and the server has been idle for a moment, against the figures
// taken once the warm-up (the first fifth of the run) is over: a leak of
// goroutines, files or worker processes shows as a count that stays up, a
// memory leak as resident memory that does not come back down.
const (
	soakMaxGoroutineGrowth = 25       // goroutines (HTTP keep-alives come and go)
	soakMaxFDGrowth        = 12       // open files (idle client connections)
	soakMaxRSSGrowth       = 96 << 20 // bytes of parent RSS over its warm-up peak
)

// soakSample is one reading of the server process and its workers.
type soakSample struct {
	At         time.Duration
	ParentRSS  int64 // bytes
	WorkerRSS  int64 // bytes, all workers together
	Workers    int
	Goroutines int
	FDs        int
}

// TestSoak drives BrakingLab with 8 concurrent clients mixing the traffic a
// real deployment sees: the coaching script repeated, never-seen code,
// scripts that time out, scripts that breach the memory limit, calls the
// client cancels, and requests with a forged token. It samples the server's
// resident memory (parent and workers), goroutines, open files and worker
// count every half second, fails if any of them keeps growing beyond the
// bounds above, and writes a PNG chart and a text summary of the series to
// testdata/artifacts/soak.{png,txt}.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test: not in -short mode")
	}
	debug := "127.0.0.1:" + freePort(t)
	s := startServer(t, "-debug-addr", debug, "-script-timeout", "1s", "-rate-limit", "-1")
	token := accessToken(t, s, "demo")
	// The cancelling client signs in as its own OAuth client. An older
	// client cancels with notifications/cancelled naming only its request
	// id, which the server matches by subject, client and id; clients of
	// one registration that number their requests alike can collide there
	// (a known limitation of that protocol revision in stateless mode, kept
	// out of what this test measures).
	cancelToken := accessToken(t, s, "demo")
	script, err := os.ReadFile(filepath.Join("..", "testdata", "coaching.ts"))
	if err != nil {
		t.Fatal(err)
	}
	pid := s.cmd.Process.Pid

	ctx, stop := context.WithTimeout(context.Background(), *soakFor)
	defer stop()

	// The sampler runs until the load and the idle period are over.
	var (
		mu      sync.Mutex
		samples []soakSample
	)
	start := time.Now()
	sample := func() soakSample {
		sm, err := readProcess(pid, debug)
		if err != nil {
			t.Errorf("sampling the server: %v", err)
		}
		sm.At = time.Since(start)
		mu.Lock()
		samples = append(samples, sm)
		mu.Unlock()
		return sm
	}
	samplerDone := make(chan struct{})
	stopSampler := make(chan struct{})
	go func() {
		defer close(samplerDone)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopSampler:
				return
			case <-tick.C:
				sample()
			}
		}
	}()

	type role struct {
		name string
		run  func(ctx context.Context, cs *mcp.ClientSession, n int) (string, error) // returns the outcome class
	}
	call := func(ctx context.Context, cs *mcp.ClientSession, code string) (string, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{"code": code}})
		if err != nil {
			return "transport error", err
		}
		if !res.IsError {
			return "ok", nil
		}
		kind := "error"
		if sc, ok := res.StructuredContent.(map[string]any); ok {
			if e, ok := sc["error"].(map[string]any); ok {
				kind, _ = e["kind"].(string)
			}
		}
		return kind, nil
	}
	expect := func(want string) func(string, error) (string, error) {
		return func(got string, err error) (string, error) {
			if err == nil && got != want {
				err = fmt.Errorf("outcome %s, want %s", got, want)
			}
			return got, err
		}
	}
	roles := []role{
		{"repeated", func(ctx context.Context, cs *mcp.ClientSession, _ int) (string, error) {
			return expect("ok")(call(ctx, cs, string(script)))
		}},
		{"repeated", func(ctx context.Context, cs *mcp.ClientSession, _ int) (string, error) {
			return expect("ok")(call(ctx, cs, string(script)))
		}},
		{"distinct", func(ctx context.Context, cs *mcp.ClientSession, n int) (string, error) {
			return expect("ok")(call(ctx, cs, fmt.Sprintf("const run = %d; // soak %d\n%s", n, n, script)))
		}},
		{"distinct", func(ctx context.Context, cs *mcp.ClientSession, n int) (string, error) {
			code := fmt.Sprintf("const s = await brakinglab.getSessions({ limit: %d });\nreturn s.map((x) => x.trackName).slice(0, %d);", 1+n%20, 1+n%7)
			return expect("ok")(call(ctx, cs, code))
		}},
		{"timeout", func(ctx context.Context, cs *mcp.ClientSession, n int) (string, error) {
			return expect("TIMEOUT")(call(ctx, cs, fmt.Sprintf("let i = %d; while (true) { i++; }", n)))
		}},
		{"memory", func(ctx context.Context, cs *mcp.ClientSession, n int) (string, error) {
			// On a loaded machine the allocations can outlast the short
			// timeout; either limit ending the run is the contained outcome.
			got, err := call(ctx, cs, fmt.Sprintf("const a = [%d]; while (true) a.push('x'.repeat(1 << 20) + a.length);", n))
			if err == nil && got != "MEMORY_LIMIT" && got != "TIMEOUT" {
				err = fmt.Errorf("outcome %s, want MEMORY_LIMIT (or TIMEOUT on a loaded machine)", got)
			}
			return got, err
		}},
		{"cancelled", func(ctx context.Context, cs *mcp.ClientSession, n int) (string, error) {
			cctx, cancel := context.WithTimeout(ctx, time.Duration(50+n%200)*time.Millisecond)
			defer cancel()
			got, err := call(cctx, cs, fmt.Sprintf("let x = %d; for (let i = 0; i < 1e10; i++) x += i; return x;", n))
			if err != nil && cctx.Err() != nil {
				return "cancelled", nil // the client gave up, as intended
			}
			return got, err
		}},
		{"forged token", func(ctx context.Context, _ *mcp.ClientSession, n int) (string, error) {
			// Paced under the per-IP limit on failed authentication: all
			// clients here share 127.0.0.1, and a faster forger would get
			// every one of them refused, as it would in production.
			time.Sleep(100 * time.Millisecond)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.MCPURL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+token[:len(token)-4]+fmt.Sprintf("%04d", n%10000))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return "transport error", err
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusTooManyRequests {
				return strconv.Itoa(resp.StatusCode), fmt.Errorf("forged token answered %d, want 401 or 429", resp.StatusCode)
			}
			return strconv.Itoa(resp.StatusCode), nil
		}},
	}

	var (
		outcomes = map[string]map[string]int{}
		failures []string
		total    atomic.Int64
		wg       sync.WaitGroup
	)
	record := func(role, outcome string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if outcomes[role] == nil {
			outcomes[role] = map[string]int{}
		}
		outcomes[role][outcome]++
		if err != nil && ctx.Err() == nil && len(failures) < 20 {
			failures = append(failures, fmt.Sprintf("%s: %v", role, err))
		}
	}
	for i, r := range roles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := mcp.NewClient(&mcp.Implementation{Name: "soak-" + r.name, Version: "1"}, nil)
			tok := token
			if r.name == "cancelled" {
				tok = cancelToken
			}
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.MCPURL, HTTPClient: &http.Client{Transport: bearerTransport(tok)}}, nil)
			if err != nil {
				record(r.name, "connect error", err)
				return
			}
			defer cs.Close()
			for n := i * 1_000_000; ctx.Err() == nil; n++ {
				outcome, err := r.run(ctx, cs, n)
				if ctx.Err() != nil {
					return // the run ended mid-call; not an outcome
				}
				total.Add(1)
				record(r.name, outcome, err)
			}
		}()
	}
	wg.Wait()

	// Idle: let finished work be cleaned up, then take the last readings.
	time.Sleep(3 * time.Second)
	close(stopSampler)
	<-samplerDone
	final := sample()

	// The server still does ordinary work after the soak.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "after-soak", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: s.MCPURL, HTTPClient: &http.Client{Transport: bearerTransport(token)}}, nil)
	if err != nil {
		t.Fatalf("connect after the soak: %v", err)
	}
	executeCode(t, context.Background(), cs, string(script))
	cs.Close()

	mu.Lock()
	defer mu.Unlock()
	warm := warmUpPeak(samples)
	summary := soakSummary(*soakFor, total.Load(), outcomes, samples, warm, final)
	t.Log("\n" + summary)
	dir := artifactDir(t)
	if err := os.WriteFile(filepath.Join(dir, "soak.txt"), []byte(summary), 0o644); err != nil {
		t.Error(err)
	}
	if err := soakChart(filepath.Join(dir, "soak.png"), samples); err != nil {
		t.Errorf("writing the chart: %v", err)
	}

	for _, f := range failures {
		t.Errorf("unexpected outcome: %s", f)
	}
	for _, r := range roles {
		if n := sumCounts(outcomes[r.name]); n == 0 {
			t.Errorf("role %q made no request in %v", r.name, *soakFor)
		}
	}
	if g := final.Goroutines - warm.Goroutines; g > soakMaxGoroutineGrowth {
		t.Errorf("goroutines grew by %d (warm-up %d, idle after the soak %d), bound %d", g, warm.Goroutines, final.Goroutines, soakMaxGoroutineGrowth)
	}
	if f := final.FDs - warm.FDs; f > soakMaxFDGrowth {
		t.Errorf("open files grew by %d (warm-up %d, idle after the soak %d), bound %d", f, warm.FDs, final.FDs, soakMaxFDGrowth)
	}
	if final.ParentRSS-warm.ParentRSS > soakMaxRSSGrowth {
		t.Errorf("parent RSS grew by %d MiB (warm-up peak %d MiB, idle after the soak %d MiB), bound %d MiB",
			(final.ParentRSS-warm.ParentRSS)>>20, warm.ParentRSS>>20, final.ParentRSS>>20, soakMaxRSSGrowth>>20)
	}
	if final.Workers > warm.Workers {
		t.Errorf("worker processes grew from %d to %d", warm.Workers, final.Workers)
	}
}

// warmUpPeak is the highest reading of each series in the first fifth of
// the run (at least the first sample).
func warmUpPeak(samples []soakSample) soakSample {
	var w soakSample
	n := max(1, len(samples)/5)
	for _, s := range samples[:min(n, len(samples))] {
		w.ParentRSS = max(w.ParentRSS, s.ParentRSS)
		w.WorkerRSS = max(w.WorkerRSS, s.WorkerRSS)
		w.Workers = max(w.Workers, s.Workers)
		w.Goroutines = max(w.Goroutines, s.Goroutines)
		w.FDs = max(w.FDs, s.FDs)
	}
	return w
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// soakSummary is the text report written next to the chart.
func soakSummary(d time.Duration, total int64, outcomes map[string]map[string]int, samples []soakSample, warm, final soakSample) string {
	var b strings.Builder
	fmt.Fprintf(&b, "soak: %v, 8 clients, %d requests (%.1f/s)\n", d, total, float64(total)/d.Seconds())
	roles := make([]string, 0, len(outcomes))
	for r := range outcomes {
		roles = append(roles, r)
	}
	slices.Sort(roles)
	for _, r := range roles {
		var parts []string
		for o, n := range outcomes[r] {
			parts = append(parts, fmt.Sprintf("%s %d", o, n))
		}
		slices.Sort(parts)
		fmt.Fprintf(&b, "  %-13s %s\n", r, strings.Join(parts, ", "))
	}
	peak := warmUpPeak(samples)
	for _, s := range samples {
		peak.ParentRSS = max(peak.ParentRSS, s.ParentRSS)
		peak.WorkerRSS = max(peak.WorkerRSS, s.WorkerRSS)
		peak.Workers = max(peak.Workers, s.Workers)
		peak.Goroutines = max(peak.Goroutines, s.Goroutines)
		peak.FDs = max(peak.FDs, s.FDs)
	}
	fmt.Fprintf(&b, "%-22s %10s %10s %10s\n", "series", "warm-up", "peak", "idle end")
	row := func(name string, w, p, f int64) { fmt.Fprintf(&b, "%-22s %10d %10d %10d\n", name, w, p, f) }
	row("parent RSS (MiB)", warm.ParentRSS>>20, peak.ParentRSS>>20, final.ParentRSS>>20)
	row("workers RSS (MiB)", warm.WorkerRSS>>20, peak.WorkerRSS>>20, final.WorkerRSS>>20)
	row("parent+workers (MiB)", (warm.ParentRSS+warm.WorkerRSS)>>20, (peak.ParentRSS+peak.WorkerRSS)>>20, (final.ParentRSS+final.WorkerRSS)>>20)
	row("worker processes", int64(warm.Workers), int64(peak.Workers), int64(final.Workers))
	row("goroutines", int64(warm.Goroutines), int64(peak.Goroutines), int64(final.Goroutines))
	row("open files", int64(warm.FDs), int64(peak.FDs), int64(final.FDs))
	fmt.Fprintf(&b, "bounds: goroutines +%d, open files +%d, parent RSS +%d MiB over the warm-up peak; workers not above it\n",
		soakMaxGoroutineGrowth, soakMaxFDGrowth, soakMaxRSSGrowth>>20)
	return b.String()
}

// readProcess reads the server's figures from /proc and its goroutine
// count from the pprof listener.
func readProcess(pid int, debugAddr string) (soakSample, error) {
	var s soakSample
	var err error
	if s.ParentRSS, err = rssOf(pid); err != nil {
		return s, err
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return s, err
	}
	s.FDs = len(fds)
	for _, child := range childrenOf(pid) {
		if rss, err := rssOf(child); err == nil { // a worker may exit between the two reads
			s.Workers++
			s.WorkerRSS += rss
		}
	}
	resp, err := http.Get("http://" + debugAddr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	if _, err := fmt.Sscanf(line, "goroutine profile: total %d", &s.Goroutines); err != nil {
		return s, fmt.Errorf("goroutine profile header %q: %v", line, err)
	}
	return s, nil
}

// rssOf is VmRSS of a process in bytes.
func rssOf(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS line")
}

// childrenOf lists the direct children of pid (the sandbox workers).
func childrenOf(pid int) []int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err == nil {
		var out []int
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
		// Children of other threads are listed under their own task.
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		for _, task := range tasks {
			if task.Name() == strconv.Itoa(pid) {
				continue
			}
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name())); err == nil {
				for _, f := range strings.Fields(string(b)) {
					if n, err := strconv.Atoi(f); err == nil {
						out = append(out, n)
					}
				}
			}
		}
		return out
	}
	return nil
}

// soakChart draws one panel per series, sharing the time axis.
func soakChart(path string, samples []soakSample) error {
	series := []struct {
		title string
		value func(soakSample) float64
	}{
		{"parent RSS (MiB)", func(s soakSample) float64 { return float64(s.ParentRSS) / (1 << 20) }},
		{"workers RSS, all (MiB)", func(s soakSample) float64 { return float64(s.WorkerRSS) / (1 << 20) }},
		{"worker processes", func(s soakSample) float64 { return float64(s.Workers) }},
		{"goroutines", func(s soakSample) float64 { return float64(s.Goroutines) }},
		{"open files", func(s soakSample) float64 { return float64(s.FDs) }},
	}
	plots := make([][]*plot.Plot, len(series))
	for i, se := range series {
		p := plot.New()
		p.Title.Text = se.title
		p.X.Label.Text = "seconds"
		p.Y.Min = 0
		xy := make(plotter.XYs, len(samples))
		for j, s := range samples {
			xy[j].X, xy[j].Y = s.At.Seconds(), se.value(s)
		}
		line, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		p.Add(line, plotter.NewGrid())
		plots[i] = []*plot.Plot{p}
	}
	img := vgimg.New(vg.Points(720), vg.Points(180*float64(len(series))))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(series), Cols: 1, PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(12), PadY: vg.Points(10)}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
