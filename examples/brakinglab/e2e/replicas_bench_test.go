package e2e

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// coachingReads is the read part of testdata/coaching.ts. Each call gets a
// fresh first line, so every execution is code the server has not seen.
const coachingReads = `
const sessions = await brakinglab.getSessions({ trackName: "Spa", limit: 5 });
const weak = await brakinglab.getWeakCorners({ trackName: "Spa", limit: 5 });
const braking = await brakinglab.getBrakingZones({ sessionId: sessions[0].id });
return { sessions: sessions.length, weak: weak.length, braking: braking != null };`

// BenchmarkReplicasThroughProxy measures execute_code calls per second
// through nginx with one and with two BrakingLab replicas on one
// PostgreSQL database, in one run. Clients call concurrently (4 per CPU),
// each call a script never seen before: the coaching script's reads.
// Authentication is off (-insecure-no-auth), so the per-user rate limit
// does not cap the numbers and token checks are not measured.
func BenchmarkReplicasThroughProxy(b *testing.B) {
	sets := map[int]*replicaSet{}
	var seq atomic.Int64
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("replicas=%d", n), func(sb *testing.B) {
			rs := sets[n]
			if rs == nil { // started once, for every round of this sub-benchmark
				rs = startReplicas(b, n, "-insecure-no-auth")
				sets[n] = rs
			}
			ctx := context.Background()
			var (
				mu       sync.Mutex
				sessions []*mcp.ClientSession
			)
			defer func() {
				for _, cs := range sessions {
					cs.Close()
				}
			}()
			sb.SetParallelism(4)
			sb.ResetTimer()
			sb.RunParallel(func(pb *testing.PB) {
				client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
				cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: rs.front.MCPURL, DisableStandaloneSSE: true}, nil)
				if err != nil {
					sb.Error(err)
					return
				}
				mu.Lock()
				sessions = append(sessions, cs)
				mu.Unlock()
				for pb.Next() {
					code := fmt.Sprintf("// run %d%s", seq.Add(1), coachingReads)
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{"code": code}})
					if err != nil {
						sb.Errorf("execute_code: %v", err)
						return
					}
					if res.IsError {
						sb.Errorf("execute_code: %s", toolText(res))
						return
					}
				}
			})
			sb.ReportMetric(float64(sb.N)/sb.Elapsed().Seconds(), "exec/s")
		})
	}
}
