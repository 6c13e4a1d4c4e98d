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
	"github.com/brakinglab/codemode-go/internal/ghcatalog"
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
		s, err := codemode.New(cat, &codemode.Options{Sandbox: sb, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkSearchInExecution runs executions that each make one
// codemode.search over the GitHub catalog (a task from the committed set,
// in turn), through the official client over loopback HTTP, and reports
// the p50 of the execution with the search and of an execution of the
// same size that only returns, whose difference is the search's cost
// inside an execution.
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
	s, err := codemode.New(cat, &codemode.Options{
		SandboxMode:   sandbox.ModeInProcess,
		RatePerSecond: -1,
		Principal:     &catalog.Principal{Subject: "bench"},
		Logger:        slog.New(slog.DiscardHandler),
		Audit:         codemode.AuditFunc(func(context.Context, codemode.AuditEvent) {}),
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
	var with, without []time.Duration
	i := 0
	for b.Loop() {
		q, _ := json.Marshal(tasks[i%len(tasks)].Task)
		i++
		with = append(with, exec(`return (await codemode.search(`+string(q)+`, { limit: 5 })).length;`))
		// The same query text, so both programs are new to the compile cache.
		without = append(without, exec(`const q = `+string(q)+`; return q.length;`))
	}
	p50 := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	w, wo := p50(with), p50(without)
	b.ReportMetric(float64(w.Microseconds()), "µs-p50-with-search")
	b.ReportMetric(float64(wo.Microseconds()), "µs-p50-without")
	b.ReportMetric(float64((w - wo).Microseconds()), "µs-search-p50")
}
