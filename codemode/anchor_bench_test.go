package codemode_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

// BenchmarkAnchorEndToEnd measures codemode and the reference Node stack
// (testdata/bench/anchor-node-mcp: the official TypeScript SDK server,
// esbuild and a fresh isolated-vm isolate per call) through the same load
// driver, the TypeScript SDK client, in one run: the coaching script on the
// shared fixture, with distinct code on every call (BENCH_UNIQUE=1, the
// realistic workload) and with 1 and 4 concurrent clients. It reports each
// side's p50 and executions per second and the ratios codemode/anchor.
//
// A third server gives the floor: a bare go-sdk server whose execute_code
// runs nothing and answers with the very result codemode gave for the
// script, so the driver, the transport and the SDKs do all the work they
// do for codemode and nothing else. No server can beat it through this
// driver, so anchor/floor is the largest ratio this machine can show
// (reported as max-p50-speedup and max-throughput-ratio).
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
	for _, mode := range []sandbox.Mode{sandbox.ModeWorker, sandbox.ModeInProcess} {
		b.Run("sandbox="+mode.String(), func(b *testing.B) { anchorEndToEnd(b, mode, runs) })
	}
}

// anchorEndToEnd is one sandbox mode's BenchmarkAnchorEndToEnd; the
// anchor and the floor are measured again beside it.
func anchorEndToEnd(b *testing.B, mode sandbox.Mode, runs string) {
	srv := benchServer(b, mode)
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	floor := httptest.NewServer(floorHandler(b, hs.URL+"/mcp"))
	defer floor.Close()

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
		bare := measure("--target", floor.URL+"/mcp", runs)
		for _, c := range []int{1, 4} {
			a, o, f := anchor[c], ours[c], bare[c]
			suffix := "-c" + strconv.Itoa(c)
			b.ReportMetric(a.P50, "anchor-p50-ms"+suffix)
			b.ReportMetric(o.P50, "codemode-p50-ms"+suffix)
			b.ReportMetric(a.ExecPerSec, "anchor-exec/s"+suffix)
			b.ReportMetric(o.ExecPerSec, "codemode-exec/s"+suffix)
			b.ReportMetric(a.P50/o.P50, "p50-speedup"+suffix)
			b.ReportMetric(o.ExecPerSec/a.ExecPerSec, "throughput-ratio"+suffix)
			b.ReportMetric(f.P50, "floor-p50-ms"+suffix)
			b.ReportMetric(f.ExecPerSec, "floor-exec/s"+suffix)
			b.ReportMetric(a.P50/f.P50, "max-p50-speedup"+suffix)
			b.ReportMetric(f.ExecPerSec/a.ExecPerSec, "max-throughput-ratio"+suffix)
		}
		b.Logf("load average (1, 5, 15 min): anchor run %v, codemode run %v", anchor[4].LoadAvg, ours[4].LoadAvg)
	}
}

// floorHandler serves the floor of BenchmarkAnchorEndToEnd: a bare go-sdk
// server, stateless like codemode's, whose execute_code returns the result
// codemode at target gave for the coaching script, without running
// anything.
func floorHandler(b *testing.B, target string) http.Handler {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: target}, nil)
	if err != nil {
		b.Fatal(err)
	}
	canned, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": coachingTS}})
	cs.Close()
	if err != nil || canned.IsError {
		b.Fatalf("%v %s", err, text(canned))
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{
		Name:        codemode.ToolName,
		Description: "Returns a fixed result.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}`),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return canned, nil
	})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true})
}

// anchorLine is one JSON line of the load driver's output.
type anchorLine struct {
	Clients    int       `json:"clients"`
	P50        float64   `json:"p50_ms"`
	P99        float64   `json:"p99_ms"`
	ExecPerSec float64   `json:"executions_per_s"`
	LoadAvg    []float64 `json:"loadavg"`
}
