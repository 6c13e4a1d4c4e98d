package codemode_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
	"github.com/brakinglab/codemode-go/sandbox"
)

// BenchmarkExecuteCoaching runs the shared coaching script
// (testdata/bench/coaching.ts: three reads, a CREATIVE write, two logs)
// end to end: the official go-sdk client posts tools/call over loopback
// HTTP, the server transpiles, runs the script in the sandbox against the
// fixture catalog, and the client decodes the result. It reports p50 and
// executions per second with 1 and 4 concurrent clients.
func BenchmarkExecuteCoaching(b *testing.B) {
	for _, mode := range []sandbox.Mode{sandbox.ModeWorker, sandbox.ModeInProcess} {
		for _, clients := range []int{1, 4} {
			b.Run(fmt.Sprintf("mode=%s/clients=%d", mode, clients), func(b *testing.B) {
				benchCoaching(b, mode, clients, false)
			})
		}
	}
	// The same with a bearer token checked on every request: by
	// introspection against the loopback test issuer, since the JWT
	// verifier is a module of its own (jwtverify's BenchmarkVerify
	// measures it).
	b.Run("mode=worker/clients=1/auth=bearer", func(b *testing.B) {
		benchCoaching(b, sandbox.ModeWorker, 1, true)
	})
	// With otelcodemode and the OpenTelemetry SDK installed, the same
	// script runs in BenchmarkExecuteCoachingTelemetry (module
	// internal/integration), which keeps both out of this module's go.mod.
}

func benchCoaching(b *testing.B, mode sandbox.Mode, clients int, auth bool) {
	tc := newTestCatalog(b)
	hs := httptest.NewUnstartedServer(nil)
	endpoint := "http://" + hs.Listener.Addr().String() + "/mcp"
	opts := &codemode.Options{ // the request limit (200 at once) would refuse a long run
		Logger:     slog.New(slog.DiscardHandler),
		Sandbox:    codemode.SandboxOptions{Mode: mode},
		RateLimits: codemode.RateLimitOptions{RatePerSecond: -1, RequestsPerSecond: -1},
		Audit:      codemode.AuditOptions{Sink: codemode.AuditFunc(func(context.Context, codemode.AuditEvent) {})},
	}
	var token string
	if auth {
		iss := oauthmetatest.NewIssuer(b, nil)
		v := iss.Verifier(endpoint)
		opts.Auth = &codemode.Auth{Verifier: v, Resource: endpoint, AuthorizationServers: []string{iss.URL}}
		token = iss.Mint(endpoint, oauthmetatest.WithClaim("sub", "bench"), oauthmetatest.WithScope(strings.Join(allScopes, " ")))
	} else {
		p := principal("bench", allScopes...)
		opts.Principal = &p
	}
	srv, err := codemode.New(tc.Catalog, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	hs.Config.Handler = srv.Handler()
	hs.Start()
	defer hs.Close()

	transport := &http.Transport{MaxIdleConnsPerHost: clients}
	defer transport.CloseIdleConnections()
	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: mcptest.Header("Authorization", "Bearer "+token, transport)}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		sessions[i] = cs
	}
	call := func(cs *mcp.ClientSession) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": coachingTS}})
		if err != nil || res.IsError {
			b.Fatalf("%v %s", err, text(res))
		}
	}
	for range 20 { // warm up: compile cache, connections
		call(sessions[0])
	}

	durations := make([]time.Duration, b.N)
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				t0 := time.Now()
				call(cs)
				durations[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "exec/s")
}
