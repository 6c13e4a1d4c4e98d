package codemode_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/brakinglab/codemode-go/codemode"
)

// BenchmarkAnchorEndToEnd measures codemode and the reference Node stack
// (testdata/bench/anchor-node-mcp: the official TypeScript SDK server,
// esbuild and a fresh isolated-vm isolate per call) through the same load
// driver, the TypeScript SDK client, in one run: the coaching script on the
// shared fixture, with distinct code on every call (BENCH_UNIQUE=1, the
// realistic workload) and with 1 and 4 concurrent clients. It reports each
// side's p50 and executions per second and the ratios codemode/anchor.
//
// It needs Node.js and installs the anchor's pinned packages on first use
// (isolated-vm builds from source: a few minutes); set ANCHOR_DIR to keep
// the installation somewhere else than the temporary directory. Each
// iteration is one full round of BENCH_RUNS calls (default 300) per side
// and concurrency, so run it with -benchtime 1x.
func BenchmarkAnchorEndToEnd(b *testing.B) {
	if _, err := exec.LookPath("node"); err != nil {
		b.Skip("node is not installed")
	}
	runs := os.Getenv("BENCH_RUNS")
	if runs == "" {
		runs = "300"
	}
	tc := newTestCatalog(b)
	p := principal("bench", allScopes...)
	srv, err := codemode.New(tc.Catalog, &codemode.Options{
		Principal:     &p,
		RatePerSecond: -1,
		Logger:        slog.New(slog.DiscardHandler),
		Audit:         codemode.AuditFunc(func(context.Context, codemode.AuditEvent) {}),
	})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	script := filepath.Join("testdata", "bench", "anchor-node-mcp", "run")
	measure := func(args ...string) map[int]anchorLine {
		cmd := exec.Command("bash", append([]string{script}, args...)...)
		cmd.Env = append(os.Environ(), "BENCH_UNIQUE=1", "BENCH_CLIENTS=1 4")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("%s %v: %v\n%s", script, args, err, stderr.Bytes())
		}
		lines := map[int]anchorLine{}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			var l anchorLine
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Clients > 0 {
				lines[l.Clients] = l
			}
		}
		if len(lines) != 2 {
			b.Fatalf("%s %v printed %d result lines, want 2:\n%s", script, args, len(lines), out)
		}
		return lines
	}
	for range b.N {
		anchor := measure(runs)
		ours := measure("--target", hs.URL+"/mcp", runs)
		for _, c := range []int{1, 4} {
			a, o := anchor[c], ours[c]
			suffix := "-c" + strconv.Itoa(c)
			b.ReportMetric(a.P50, "anchor-p50-ms"+suffix)
			b.ReportMetric(o.P50, "codemode-p50-ms"+suffix)
			b.ReportMetric(a.ExecPerSec, "anchor-exec/s"+suffix)
			b.ReportMetric(o.ExecPerSec, "codemode-exec/s"+suffix)
			b.ReportMetric(a.P50/o.P50, "p50-speedup"+suffix)
			b.ReportMetric(o.ExecPerSec/a.ExecPerSec, "throughput-ratio"+suffix)
		}
		b.Logf("load average (1, 5, 15 min): anchor run %v, codemode run %v", anchor[4].LoadAvg, ours[4].LoadAvg)
	}
}

// anchorLine is one JSON line of the load driver's output.
type anchorLine struct {
	Clients    int       `json:"clients"`
	P50        float64   `json:"p50_ms"`
	P99        float64   `json:"p99_ms"`
	ExecPerSec float64   `json:"executions_per_s"`
	LoadAvg    []float64 `json:"loadavg"`
}
