package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/sandbox"

	"github.com/brakinglab/codemode-go/codemode"
)

func executeBody(code string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":%q}}}`, code)
}

// TestTwoReplicasBoundary: with two replicas on one PostgreSQL database
// behind nginx, the limits that keep one user from taking capacity from
// others hold across both. One user's flood of slow scripts, spread over
// both replicas, leaves room for another user's small scripts (they never
// wait for a slow script to time out; their latency is logged); the per-user request limit on every method is one budget, not one
// per replica; and the sign-in password throttle counts the guesses that
// reach either replica together.
func TestTwoReplicasBoundary(t *testing.T) {
	rs := startReplicas(t, 2)
	front := rs.front
	demo, rival := accessToken(t, front, "demo"), accessToken(t, front, "rival")

	t.Run("a flood leaves capacity for others", func(t *testing.T) {
		// Rival has used the service before on both replicas.
		for range 4 {
			if status, _, d, err := mcptest.Post(context.Background(), front.MCPURL, rival, "2025-06-18", executeBody("return 1")); err != nil || status != http.StatusOK {
				t.Fatalf("rival before the flood: %d %v", status, err)
			} else {
				t.Logf("rival before the flood: %v", d)
			}
		}
		// Demo keeps twelve slow scripts in flight through the proxy (six
		// a replica: two running, four waiting), starting another as soon
		// as one ends, so both replicas' workers stay taken however long
		// rival's runs take.
		floodCtx, stopFlood := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		var mu sync.Mutex
		outcomes := map[string]int{} // how demo's flood executions ended
		for range 12 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for floodCtx.Err() == nil {
					_, body, _, err := mcptest.Post(floodCtx, front.MCPURL, demo, "2025-06-18", executeBody("while (true) {}"))
					outcome := "other: " + body
					switch {
					case err != nil && floodCtx.Err() != nil:
						return // stopped
					case err != nil:
						outcome = "error: " + err.Error()
					case strings.Contains(body, "TIMEOUT"):
						outcome = "TIMEOUT"
					case strings.Contains(body, "BUSY"):
						outcome = "BUSY"
					}
					mu.Lock()
					outcomes[outcome]++
					mu.Unlock()
				}
			}()
		}
		defer func() { stopFlood(); wg.Wait() }()
		time.Sleep(time.Second) // the flood reaches both replicas and fills their workers
		// A hundred runs, so that p99 is a run and not the maximum, four a
		// second: rival's execution budget (60 at once, 2 a second) lasts
		// them.
		const runs = 100
		var lat []time.Duration
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for i := range runs {
			<-tick.C
			status, body, d, err := mcptest.Post(context.Background(), front.MCPURL, rival, "2025-06-18", executeBody("return 1"))
			if err != nil || status != http.StatusOK || strings.Contains(body, `"isError":true`) {
				t.Fatalf("rival's run %d: %d %v %.300s", i, status, err, body)
			}
			lat = append(lat, d)
		}
		stopFlood()
		wg.Wait()
		t.Logf("demo's flood executions that ended while rival ran: %v", outcomes)
		for outcome, n := range outcomes {
			// A slow script ends only at its timeout: until then it held a
			// worker (or waited for one, or was refused at once).
			if outcome != "TIMEOUT" && outcome != "BUSY" {
				t.Fatalf("%d of demo's flood executions ended otherwise than by their timeout: %.300s", n, outcome)
			}
		}
		slices.Sort(lat)
		p99 := lat[runs*99/100-1]
		t.Logf("rival's latency through nginx during demo's flood (%d runs): p50 %v, p90 %v, p99 %v, max %v",
			runs, lat[runs/2], lat[runs*9/10], p99, lat[runs-1])
		// Without the reserve, rival waited for one of demo's scripts to
		// time out (10 s, the sandbox's default). With it, rival's runs
		// never wait for one: p99 stays far below the timeout. The latency
		// itself (the 1 s p99 target) is a measurement, logged above and
		// reported from benchmarks, not asserted: on this 2-core machine it
		// ranged from 0.5 to 2.9 s from one run to the next, at this stop's
		// code and at the commit before it alike.
		if limit := sandbox.DefaultTimeout / 2; p99 > limit {
			t.Fatalf("rival's p99 latency %v during demo's flood, want well under the scripts' %v timeout (at most %v): rival waited for demo's scripts", p99, sandbox.DefaultTimeout, limit)
		}
	})

	t.Run("the request limit holds across replicas", func(t *testing.T) {
		const read = `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"codemode://types/brakinglab.d.ts"}}`
		accepted, start := 0, time.Now()
		for {
			status, _, _, err := mcptest.Post(context.Background(), front.MCPURL, demo, "2025-06-18", read)
			if err != nil {
				t.Fatal(err)
			}
			if status == http.StatusTooManyRequests {
				break
			}
			if status != http.StatusOK {
				t.Fatalf("read %d: status %d", accepted+1, status)
			}
			if accepted++; accepted > 1000 {
				t.Fatal("no 429 after 1000 reads")
			}
		}
		// The flood above spent some of demo's budget too: at most one
		// shared budget, never two.
		shared := float64(codemode.DefaultRequestBurst) + codemode.DefaultRequestsPerSec*time.Since(start).Seconds()
		t.Logf("%d reads accepted through the proxy before the first 429 (one shared budget: at most about %.0f)", accepted, shared)
		if float64(accepted) >= 1.5*shared {
			t.Fatalf("%d reads accepted before the first 429: the replicas do not share the request budget (%.0f)", accepted, shared)
		}
		// Rival is not affected.
		if status, _, _, err := mcptest.Post(context.Background(), front.MCPURL, rival, "2025-06-18", read); err != nil || status != http.StatusOK {
			t.Fatalf("rival's read after demo's flood: %d %v", status, err)
		}
	})

	t.Run("the password throttle holds across replicas", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		d := discover(t, front)
		const redirect = "http://127.0.0.1:53685/callback"
		clientID := register(t, d, "BrakingLab e2e guesser", redirect)
		// Ten wrong passwords, one per authorization request, which nginx
		// spreads over both replicas (the limit is ten per source and
		// account; per replica, twenty would pass).
		for i := range 10 {
			ar := newAuthRequest(d, clientID, redirect)
			_, err := signInAndDecide(ctx, browserClient(), front.Base, ar.URL, "rival", "wrong-guess", "Allow")
			if err == nil || !strings.Contains(err.Error(), "status 401") {
				t.Fatalf("wrong password %d: %v, want 401", i+1, err)
			}
		}
		ar := newAuthRequest(d, clientID, redirect)
		_, err := signInAndDecide(ctx, browserClient(), front.Base, ar.URL, "rival", front.Users["rival"], "Allow")
		if err == nil || !strings.Contains(err.Error(), "status 429") {
			t.Fatalf("the right password after ten wrong ones through two replicas: %v, want 429", err)
		}
	})
}
