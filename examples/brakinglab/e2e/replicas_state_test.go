package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/codemode"
)

// lastUpstreams returns the upstream and status of the last n logged
// requests with method and path, oldest first.
func (p *proxy) lastUpstreams(t *testing.T, method, path string, n int) [][2]string {
	t.Helper()
	var all [][2]string
	for _, fields := range logFields(t, p.accessLog) {
		if len(fields) == 4 && fields[1] == method && fields[2] == path {
			all = append(all, [2]string{fields[0], fields[3]})
		}
	}
	if len(all) < n {
		t.Fatalf("proxy logged %d %s %s requests, want at least %d", len(all), method, path, n)
	}
	return all[len(all)-n:]
}

// callTool posts one stateless tools/call with a bearer token, as a client
// of protocol revision 2025-06-18 does, and returns the HTTP status.
func callTool(t *testing.T, mcpURL, token, code string) int {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":%q}}}`, code)
	req, _ := http.NewRequest(http.MethodPost, mcpURL, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// waitForLog waits until one of the replicas' stderr holds more than
// before[i] lines containing each of want, and returns which replica.
func waitForLog(t *testing.T, ctx context.Context, rs *replicaSet, before []int, want ...string) int {
	t.Helper()
	for {
		for i, s := range rs.replicas {
			if countLines(s.stderr.String(), want...) > before[i] {
				return i
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no replica logged %q", want)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func countLines(log string, want ...string) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(line, w)
		}
		if ok {
			n++
		}
	}
	return n
}

// TestTwoReplicasShareLimitsAndCancellation: with two replicas on one
// PostgreSQL database behind nginx, the SDK state that must not be per
// process is shared. A client of protocol revision 2025-06-18 cancels a
// running execution with notifications/cancelled, which nginx sends to
// the other replica, and the execution stops (CANCELLED, not TIMEOUT).
// One user's execution budget holds across both: the first refusal comes
// within one replica's burst, and from then on both replicas refuse.
func TestTwoReplicasShareLimitsAndCancellation(t *testing.T) {
	rs := startReplicas(t, 2)
	front := rs.front
	ctx, cancelAll := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancelAll()
	token := accessToken(t, front, "demo")

	t.Run("cancellation lands on the other replica", func(t *testing.T) {
		client := mcp.NewClient(&mcp.Implementation{Name: "old-client", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint: front.MCPURL, DisableStandaloneSSE: true,
			HTTPClient: &http.Client{Transport: bearerTransport(token)},
		}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		before := make([]int, len(rs.replicas))
		for i, s := range rs.replicas {
			before[i] = countLines(s.stderr.String(), "event=execution.started")
		}
		callCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{
				"code": "await brakinglab.getProfile({}); while (true) {}"}})
			done <- err
		}()
		runner := waitForLog(t, ctx, rs, before, "event=execution.started")
		ended := countLines(rs.replicas[runner].stderr.String(), "event=execution.failed")
		cancel() // the client POSTs notifications/cancelled
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("CallTool after cancel: %v", err)
		}
		waitForLog(t, ctx, &replicaSet{replicas: rs.replicas[runner : runner+1]}, []int{ended}, "event=execution.failed")
		if failed := rs.replicas[runner].stderr.String(); countLines(failed, "event=execution.failed", "errorKind=CANCELLED") == 0 {
			t.Fatalf("the execution on replica %s did not end CANCELLED:\n%s", rs.addrs[runner], failed)
		}
		// The proxy's last two POST /mcp: the notification (202) and the
		// call (which the client abandoned when it cancelled), in either
		// order.
		last := rs.proxy.lastUpstreams(t, "POST", "/mcp", 2)
		note, call := last[0], last[1]
		if call[1] == "202" {
			note, call = call, note
		}
		if note[1] != "202" || call[0] != rs.addrs[runner] || note[0] == call[0] {
			t.Fatalf("notification %v, call %v: want the notification (202) on the replica not running the call (%s)", note, call, rs.addrs[runner])
		}
	})

	t.Run("rate limit holds across replicas", func(t *testing.T) {
		// The per-user budget is 60 executions at once, then 2 per second
		// (codemode.DefaultRateBurst, DefaultRatePerSec): shared, the first
		// refusal comes after 60 + 2/s × the time taken; with a budget per
		// replica it would come after twice that. The bound lies between.
		accepted, start := 0, time.Now()
		for {
			code := callTool(t, front.MCPURL, token, "return 1;")
			if code == http.StatusTooManyRequests {
				break
			}
			if code != http.StatusOK {
				t.Fatalf("execution %d: status %d", accepted+1, code)
			}
			if accepted++; accepted > 200 {
				t.Fatal("no 429 after 200 executions")
			}
		}
		shared := float64(codemode.DefaultRateBurst) + codemode.DefaultRatePerSec*time.Since(start).Seconds()
		t.Logf("%d executions accepted through the proxy before the first 429 (one shared budget: about %.0f)", accepted, shared)
		if float64(accepted) >= 1.5*shared {
			t.Fatalf("%d executions accepted before the first 429, one shared budget allows about %.0f: the replicas do not share it", accepted, shared)
		}
		// Ten more, alternating between the replicas: both refuse. (The
		// bucket refills 2 per second, so some may get through.)
		for range 10 {
			callTool(t, front.MCPURL, token, "return 1;")
		}
		refused := map[string]int{}
		for _, l := range rs.proxy.lastUpstreams(t, "POST", "/mcp", 11) {
			if l[1] == "429" {
				refused[l[0]]++
			}
		}
		for _, addr := range rs.addrs {
			if refused[addr] < 2 {
				t.Fatalf("after the budget ran out, replica %s refused %d of its last executions (%v)", addr, refused[addr], refused)
			}
		}
	})
}
