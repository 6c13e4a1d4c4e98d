package main

import (
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/hostiletest"
	"github.com/brakinglab/codemode-go/internal/logtest"
	"github.com/brakinglab/codemode-go/internal/mcptest"
)

// A gateway in front of four hostile servers (recursive and over-deep
// schemas, 5,000 tools, a list_changed flood, a nextCursor without end)
// and a well-behaved one starts, serves every server's good tools, leaves
// the bad ones out with reasons, and keeps its description bounded.
func TestGatewayHostileUpstreams(t *testing.T) {
	bin, err := hostiletest.Binary()
	if err != nil {
		t.Fatal(err)
	}
	config := writeConfig(t, map[string]any{
		"schemas": map[string]any{"command": bin, "args": []string{"recursive"}},
		"many":    map[string]any{"command": bin, "args": []string{"many=5000"}},
		"flood":   map[string]any{"command": bin, "args": []string{"flood"}},
		"endless": map[string]any{"command": bin, "args": []string{"endless"}},
		"good":    map[string]any{"command": bin},
	})
	ups, err := ReadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	var logs logtest.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	start, startCPU := time.Now(), hostiletest.CPU()
	g, err := Open(t.Context(), ups, &codemode.Options{Principal: &catalog.Principal{Subject: "dev"}, Logger: log, Audit: codemode.AuditOptions{Sink: codemode.NoAudit}}, log)
	if err != nil {
		t.Fatalf("the gateway did not start: %v", err)
	}
	t.Cleanup(func() { g.Close() })
	t.Logf("started in %v, %v of CPU", time.Since(start).Round(time.Millisecond), hostiletest.CPU()-startCPU)
	for _, want := range []string{
		`tool=deep reason="catalog: deep: input schema: #/properties/a/properties/…(`,
		`tool=loop reason="catalog: loop: input schema: #/$defs/M: the schema refers back to itself`,
		`tool=deeper reason="its declaration nests 2202 levels deep`,
		`reason="the server lists 5001 tools, more than Options.MaxTools (1000): the first 1000 are kept"`,
		`tool list cut short: the server's nextCursor did not end within Options.MaxListPages pages`,
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q", want)
		}
	}

	cs := mcptest.ConnectMemory(t, t.Context(), g.Server.MCPServer(), nil)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	desc := tools.Tools[0].Description
	t.Logf("description: %d characters", len(desc))
	if len(desc) > 30000 {
		t.Errorf("the description is %d characters", len(desc))
	}

	// Every server's good tool answers, while the flood goes on; the
	// recursive tree is callable too.
	floodStart, floodCPU := time.Now(), hostiletest.CPU()
	var latencies []time.Duration
	for range 20 {
		before := time.Now()
		got := string(call(t, cs, `return [await schemas.ok({}), await many.ok({}), await flood.ok({}), await endless.ok({}), await good.ok({}), await schemas.tree({ child: { child: {} } })]`))
		latencies = append(latencies, time.Since(before))
		if got != `["fine","fine","fine","fine","fine","fine"]` {
			t.Fatalf("calls: %s", got)
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	elapsed := time.Since(floodStart)
	used := hostiletest.CPU() - floodCPU
	slices.Sort(latencies)
	t.Logf("20 executions of 6 calls during the flood: %v, median %v, slowest %v; gateway CPU %v (%.0f%% of a core), heap %d MiB",
		elapsed.Round(time.Millisecond), latencies[10].Round(time.Millisecond), latencies[19].Round(time.Millisecond), used, 100*used.Seconds()/elapsed.Seconds(), ms.HeapAlloc>>20)
}
