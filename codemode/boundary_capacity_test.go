package codemode_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/sandbox"
)

// floodThenServe has alice flood the server with slow scripts (more than
// the pool holds and queues) and then measures bob's small scripts, run
// one after the other while the flood holds the workers. It returns bob's
// latencies and checks that alice's scripts were still running after bob's
// last one ended.
func floodThenServe(t *testing.T, url, alice, bob string, floodSize, bobRuns int) []time.Duration {
	t.Helper()
	var wg sync.WaitGroup
	floodEnded := make(chan time.Time, floodSize)
	for range floodSize {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, body, _, _ := mcptest.Post(context.Background(), url, alice, "", callBody("while (true) {}"))
			if !strings.Contains(body, "BUSY") { // refused at once: never held a worker
				floodEnded <- time.Now()
			}
		}()
	}
	t.Cleanup(wg.Wait)
	time.Sleep(300 * time.Millisecond) // the flood holds the workers and fills alice's queue
	var lat []time.Duration
	for i := range bobRuns {
		status, body, d, err := mcptest.Post(context.Background(), url, bob, "", callBody("return 1"))
		if err != nil || status != http.StatusOK || !strings.Contains(body, `"isError":false`) && strings.Contains(body, `"isError":true`) {
			t.Fatalf("bob's run %d: %d %v %s", i, status, err, body)
		}
		lat = append(lat, d)
	}
	bobDone := time.Now()
	wg.Wait()
	close(floodEnded)
	first := time.Time{}
	for end := range floodEnded {
		if first.IsZero() || end.Before(first) {
			first = end
		}
	}
	if first.Before(bobDone) {
		t.Fatalf("alice's first slow script ended (%v) before bob's runs did (%v): the test did not measure a saturated pool", first, bobDone)
	}
	slices.Sort(lat)
	return lat
}

// p99 returns the 99th percentile of sorted latencies.
func p99(sorted []time.Duration) time.Duration {
	return sorted[(len(sorted)*99+99)/100-1]
}

// One user flooding slow scripts does not stall another: on a 2-worker
// pool, with alice's scripts holding both workers and more of them queued,
// bob's small scripts start at once (p99 under 1 s; before the reserve
// they waited for one of alice's to time out). In process, where nothing
// queues, the same holds.
func TestFloodLeavesCapacityForOthers(t *testing.T) {
	for _, mode := range []sandbox.Mode{sandbox.ModeWorker, sandbox.ModeInProcess} {
		t.Run(mode.String(), func(t *testing.T) {
			ts := startServer(t, func(o *codemode.Options) {
				o.Sandbox.Mode = mode
				o.Limits.Timeout = 4 * time.Second
			})
			alice, bob := ts.token("alice", allScopes...), ts.token("bob", allScopes...)
			// 2 running, 8 waiting (alice's bound) and 2 refused BUSY.
			lat := floodThenServe(t, ts.URL, alice, bob, 12, 10)
			t.Logf("bob's latency during alice's flood: p50 %v, p99 %v, max %v", lat[len(lat)/2], p99(lat), lat[len(lat)-1])
			if p99(lat) > time.Second {
				t.Fatalf("bob's p99 latency %v during alice's flood, want under 1 s", p99(lat))
			}
		})
	}
}
