package codemode_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/testdata/ghcatalog"
	"github.com/brakinglab/codemode-go/sandbox"
)

// BenchmarkNewLargeCatalog measures codemode.New on the generated
// 313-function GitHub catalog in auto mode: declarations, the full
// description it measures against the budget, the index and the search
// index.
func BenchmarkNewLargeCatalog(b *testing.B) {
	cat, err := ghcatalog.New()
	if err != nil {
		b.Fatal(err)
	}
	sb, err := sandbox.New(&sandbox.Options{Mode: sandbox.ModeInProcess})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	b.ReportAllocs()
	for b.Loop() {
		s, err := codemode.New(cat, &codemode.Options{Principal: &catalog.Principal{Subject: "bench"}, Logger: slog.New(slog.DiscardHandler), Sandbox: codemode.SandboxOptions{Shared: sb}})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkSearchInExecution runs executions that each make 20
// codemode.search calls over the GitHub catalog (tasks from the committed
// set), through the official client over loopback HTTP, and executions of
// the same size without them. It reports both p50s and their difference
// divided by 20: one search's cost inside an execution.
func BenchmarkSearchInExecution(b *testing.B) {
	cat, err := ghcatalog.New()
	if err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/search_tasks_github.json")
	if err != nil {
		b.Fatal(err)
	}
	var tasks []searchTask
	if err := json.Unmarshal(raw, &tasks); err != nil {
		b.Fatal(err)
	}
	s, err := codemode.New(cat, &codemode.Options{ // the request limit (200 at once) would refuse a long run
		Principal:  &catalog.Principal{Subject: "bench"},
		Logger:     slog.New(slog.DiscardHandler),
		Sandbox:    codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
		RateLimits: codemode.RateLimitOptions{RatePerSecond: -1, RequestsPerSecond: -1},
		Audit:      codemode.AuditOptions{Sink: codemode.AuditFunc(func(context.Context, codemode.AuditEvent) {})},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	exec := func(code string) time.Duration {
		start := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": code}})
		if err != nil || res.IsError {
			b.Fatalf("execution failed: %v %v", err, res)
		}
		return time.Since(start)
	}
	const perRun = 20
	var with, without []time.Duration
	i := 0
	for b.Loop() {
		qs := make([]string, perRun)
		for j := range qs {
			qs[j] = tasks[(i+j)%len(tasks)].Task
		}
		i++
		q, _ := json.Marshal(qs)
		with = append(with, exec(`const qs = `+string(q)+`; let n = 0; for (const q of qs) n += (await codemode.search(q, { limit: 5 })).length; return n;`))
		// The same program text without the searches, new to the compile cache too.
		without = append(without, exec(`const qs = `+string(q)+`; let n = 0; for (const q of qs) n += q.length; return n;`))
	}
	p50 := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	w, wo := p50(with), p50(without)
	b.ReportMetric(float64(w.Microseconds()), "µs-p50-with-20-searches")
	b.ReportMetric(float64(wo.Microseconds()), "µs-p50-without")
	b.ReportMetric(float64((w-wo).Microseconds())/perRun, "µs-per-search")
}
