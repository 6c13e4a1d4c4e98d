package pgstate_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/pgstate"
	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/internal/pgtest"
	"github.com/brakinglab/codemode-go/sandbox"
)

// replica is one codemode server with its own pool and pgstate, as a
// separate process would have, on its own loopback listener.
type replica struct {
	URL     string
	state   *pgstate.State
	running chan context.Context // one per wait call, when it starts
}

// startReplica starts a server whose catalog has slow.wait, which blocks
// until its context ends or release is closed. limit configures the
// shared rate limit (nil: none beyond the default).
// openState connects to dbURL and returns the shared state over it; both
// close when the test ends.
func openState(t testing.TB, dbURL string) *pgstate.State {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	st, err := pgstate.New(ctx, pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func startReplica(t *testing.T, dbURL string, release chan struct{}, limit func(*pgstate.State) state.RateLimiter) *replica {
	t.Helper()
	st := openState(t, dbURL)
	r := &replica{state: st, running: make(chan context.Context, 4)}

	cat, err := catalog.New("slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	catalog.MustAdd(cat, catalog.Func[struct{}, int]{
		Name: "wait", Tier: catalog.ReadOnly, Description: "Blocks until cancelled or released.",
		Handler: func(ctx context.Context, _ struct{}) (int, error) {
			r.running <- ctx
			select {
			case <-ctx.Done():
				return 0, ctx.Err()
			case <-release:
				return 1, nil
			}
		},
	})
	opts := &codemode.Options{
		Principal: &catalog.Principal{Subject: "alice", ClientID: "cli"},
		Sandbox:   codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
		State:     codemode.SharedState{Cancellations: st.Cancellations()},
		Audit:     codemode.AuditOptions{Sink: codemode.AuditFunc(func(context.Context, codemode.AuditEvent) {})},
	}
	if limit != nil {
		opts.State.RateLimiter = limit(st)
	}
	srv, err := codemode.New(cat, opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	r.URL = hs.URL + "/mcp"
	return r
}

// post sends one JSON-RPC message as a 2025-06-18 client, which cancels
// with notifications/cancelled, and returns the status and body.
func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func callBody(id, code string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":"` + code + `"}}}`
}

func cancelBody(id string) string {
	return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"stop"}}`
}

// A notifications/cancelled POST that lands on replica B stops the
// execution running on replica A.
func TestCancellationAcrossReplicas(t *testing.T) {
	db := pgtest.NewDatabase(t)
	release := make(chan struct{})
	a, b := startReplica(t, db, release, nil), startReplica(t, db, release, nil)
	cancelAcross(t, a, b, "7")
}

// After the database drops the replicas' listening connections, they
// reconnect by themselves and cancellations reach them again.
func TestCancellationAfterListenerReconnects(t *testing.T) {
	db := pgtest.NewDatabase(t)
	release := make(chan struct{})
	a, b := startReplica(t, db, release, nil), startReplica(t, db, release, nil)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	const listeners = `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN codemode_cancel'`
	old := map[uint32]bool{}
	rows, _ := admin.Query(ctx, listeners)
	pids, err := pgx.CollectRows(rows, pgx.RowTo[uint32])
	if err != nil || len(pids) != 2 {
		t.Fatalf("listening sessions: %v, %v; want 2", pids, err)
	}
	for _, pid := range pids {
		old[pid] = true
		if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
			t.Fatal(err)
		}
	}
	// Wait for two new listening sessions (the test's deadline bounds it).
	for fresh := 0; fresh < 2; {
		time.Sleep(50 * time.Millisecond)
		rows, _ := admin.Query(ctx, listeners)
		pids, err := pgx.CollectRows(rows, pgx.RowTo[uint32])
		if err != nil {
			t.Fatal(err)
		}
		fresh = 0
		for _, pid := range pids {
			if !old[pid] {
				fresh++
			}
		}
	}
	cancelAcross(t, a, b, "8")
}

// cancelAcross runs a call with id on a and cancels it through b.
func cancelAcross(t *testing.T, a, b *replica, id string) {
	t.Helper()
	answer := make(chan string, 1)
	go func() {
		_, body := post(t, a.URL, callBody(id, "return await slow.wait({})"))
		answer <- body
	}()
	ctx := <-a.running
	if code, _ := post(t, b.URL, cancelBody(id)); code != http.StatusAccepted {
		t.Fatalf("cancellation on B: status %d", code)
	}
	<-ctx.Done() // blocks (and the test times out) if the cancellation never arrives
	body := <-answer
	if !strings.Contains(body, "cancel") || !strings.Contains(body, `"isError":true`) {
		t.Fatalf("A's answer does not report the cancellation: %s", body)
	}
}

// Two calls of the same principal and client with the same request id, one
// on each replica, make a cancellation ambiguous: it stops neither, as on
// one replica.
func TestAmbiguousCancellationAcrossReplicas(t *testing.T) {
	db := pgtest.NewDatabase(t)
	release := make(chan struct{})
	a, b := startReplica(t, db, release, nil), startReplica(t, db, release, nil)

	answers := make(chan string, 2)
	for _, r := range []*replica{a, b} {
		go func() {
			_, body := post(t, r.URL, callBody("9", "return await slow.wait({})"))
			answers <- body
		}()
	}
	ctxA, ctxB := <-a.running, <-b.running
	if code, _ := post(t, b.URL, cancelBody("9")); code != http.StatusAccepted {
		t.Fatalf("cancellation: status %d", code)
	}
	settle(t, []string{"10", "11"}, a, b)
	if ctxA.Err() != nil || ctxB.Err() != nil {
		t.Fatalf("an ambiguous cancellation stopped a call: A %v, B %v", ctxA.Err(), ctxB.Err())
	}
	close(release)
	for range 2 {
		if body := <-answers; strings.Contains(body, "cancel") {
			t.Fatalf("released call reports a cancellation: %s", body)
		}
	}
}

// settle returns once every cancellation sent before it had its chance to
// arrive. A cancellation that matched would have been committed before its
// POST was answered, and each replica's listener receives notifications in
// commit order: so once a later, unambiguous cancellation (one marker call
// per replica, with the given unused ids) has reached each replica, the
// earlier ones have too.
func settle(t *testing.T, ids []string, replicas ...*replica) {
	t.Helper()
	for i, r := range replicas {
		id := ids[i]
		done := make(chan struct{})
		go func() {
			post(t, r.URL, callBody(id, "return await slow.wait({})"))
			close(done)
		}()
		marker := <-r.running
		if code, _ := post(t, r.URL, cancelBody(id)); code != http.StatusAccepted {
			t.Fatalf("marker cancellation: status %d", code)
		}
		<-marker.Done()
		<-done
	}
}

// A late cancellation for a call that has just ended on one replica must
// not stop another session's call with the same id on the other replica
// (same principal and client, counters that met): the ended call's row
// keeps the id ambiguous for a minute. Once it expires, the id names one
// call again.
func TestLateCancellationAfterSameIDEnded(t *testing.T) {
	db := pgtest.NewDatabase(t)
	release := make(chan struct{})
	a, b := startReplica(t, db, release, nil), startReplica(t, db, release, nil)

	if code, body := post(t, a.URL, callBody("5", "return 1")); code != http.StatusOK || !strings.Contains(body, `"result":1`) {
		t.Fatalf("first call: %d %s", code, body)
	}
	answer := make(chan string, 1)
	go func() {
		_, body := post(t, b.URL, callBody("5", "return await slow.wait({})"))
		answer <- body
	}()
	ctxB := <-b.running
	if code, _ := post(t, a.URL, cancelBody("5")); code != http.StatusAccepted {
		t.Fatalf("late cancellation: status %d", code)
	}
	settle(t, []string{"20", "21"}, a, b)
	if ctxB.Err() != nil {
		t.Fatal("a late cancellation for an ended call stopped the other session's call")
	}

	// Past the memory of ended calls, the same cancellation is unambiguous.
	pool, err := pgxpool.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(context.Background(), "UPDATE codemode_calls SET expires = now() - interval '1 second' WHERE ended"); err != nil {
		t.Fatal(err)
	}
	if code, _ := post(t, a.URL, cancelBody("5")); code != http.StatusAccepted {
		t.Fatalf("cancellation: status %d", code)
	}
	select {
	case <-ctxB.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the cancellation did not stop the call once the ended id was forgotten")
	}
	if body := <-answer; !strings.Contains(body, "cancel") {
		t.Fatalf("cancelled call answered: %s", body)
	}
}

// One execution budget holds across both replicas: with a burst of 3,
// three executions spread over A and B pass and the fourth is refused,
// whichever replica it lands on.
func TestRateLimitAcrossReplicas(t *testing.T) {
	db := pgtest.NewDatabase(t)
	release := make(chan struct{})
	close(release)
	limit := func(st *pgstate.State) state.RateLimiter { return st.Limiter("executions", 0.001, 3) }
	a, b := startReplica(t, db, release, limit), startReplica(t, db, release, limit)
	for i, r := range []*replica{a, b, a, b, a} {
		code, body := post(t, r.URL, callBody("1", "return 1"))
		want := http.StatusOK
		if i >= 3 {
			want = http.StatusTooManyRequests
		}
		if code != want {
			t.Fatalf("execution %d: status %d, want %d: %s", i+1, code, want, body)
		}
	}
	// Set-up traffic is not counted.
	if code, _ := post(t, b.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`); code != http.StatusOK {
		t.Fatalf("tools/list after the budget is spent: %d", code)
	}
}

// The limiter as a failed-authentication counter: failures past the burst
// block the key on every replica, other keys are unaffected, and a
// database outage degrades to a per-process limit instead of failing.
func TestLimiterFailuresAndOutage(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := context.Background()
	states := make([]*pgstate.State, 2)
	for i := range states {
		pool, err := pgxpool.New(ctx, srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		if states[i], err = pgstate.New(ctx, pool, nil); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { states[i].Close() })
	}
	a, b := states[0].Limiter("auth-failures", 0.001, 3), states[1].Limiter("auth-failures", 0.001, 3)
	for i, l := range []*pgstate.Limiter{a, b, a} {
		if d, err := l.Blocked(ctx, "ip:192.0.2.1"); d != 0 || err != nil {
			t.Fatalf("before failure %d: blocked %v, %v", i+1, d, err)
		}
		if err := l.Failed(ctx, "ip:192.0.2.1"); err != nil {
			t.Fatal(err)
		}
	}
	if d, err := b.Blocked(ctx, "ip:192.0.2.1"); d <= 0 || err != nil {
		t.Fatalf("after three failures on two replicas: blocked %v, %v", d, err)
	}
	if d, _ := a.Blocked(ctx, "ip:192.0.2.2"); d != 0 {
		t.Fatalf("another address is blocked for %v", d)
	}
	// Another name is another set of buckets.
	if d, _ := states[0].Limiter("executions", 0.001, 3).Take(ctx, "ip:192.0.2.1", 1); d != 0 {
		t.Fatalf("the executions limiter shares the failures' bucket: wait %v", d)
	}

	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for i := range 3 {
		if d, err := a.Take(ctx, "sub:bob", 1); d != 0 || err != nil {
			t.Fatalf("take %d during the outage: %v, %v", i+1, d, err)
		}
	}
	if d, err := a.Take(ctx, "sub:bob", 1); d <= 0 || err != nil {
		t.Fatalf("fourth take during the outage: %v, %v; want the per-process limit to refuse it", d, err)
	}
}

// A database that answers slowly holds no request past the wait: with
// the tables locked by another session, a limiter decides in process and
// a call runs and answers before its registration is stored. Once the
// lock goes, the statements complete: the shared bucket counts the
// execution and the call's row is stored and marked ended.
func TestSlowDatabaseHoldsNoRequest(t *testing.T) {
	db := pgtest.NewDatabase(t)
	release := make(chan struct{})
	close(release)
	var lim *pgstate.Limiter
	r := startReplica(t, db, release, func(st *pgstate.State) state.RateLimiter {
		lim = st.Limiter("executions", 0.001, 3)
		return lim
	})
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	tx, err := admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	// Every statement on these tables waits for the lock, reads too.
	if _, err := tx.Exec(ctx, "LOCK TABLE codemode_buckets, codemode_calls IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	answered := make(chan string, 1)
	go func() {
		if d, err := lim.Blocked(ctx, "ip:192.0.2.9"); d != 0 || err != nil {
			answered <- fmt.Sprintf("blocked while the database is slow: %v, %v; want 0 from the in-process bucket", d, err)
			return
		}
		code, body := post(t, r.URL, callBody("3", "return 1"))
		if code != http.StatusOK || !strings.Contains(body, `"result":1`) {
			answered <- fmt.Sprintf("execution while the database is slow: %d %s", code, body)
			return
		}
		answered <- ""
	}()
	select {
	case msg := <-answered:
		if msg != "" {
			t.Fatal(msg)
		}
	case <-time.After(10 * time.Second):
		tx.Rollback(ctx) // let the requests through before failing
		<-answered
		t.Fatal("requests waited for the locked tables: a slow database holds them")
	}
	t.Logf("a failed-authentication check and an execution answered in %v with the tables locked", time.Since(start))
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// The statements that outlived the wait complete now.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var tokens float64
		var ended bool
		errB := admin.QueryRow(ctx, "SELECT tokens FROM codemode_buckets WHERE name = 'executions' AND key = 'sub:alice'").Scan(&tokens)
		errC := admin.QueryRow(ctx, "SELECT ended FROM codemode_calls WHERE id = 'n:3'").Scan(&ended)
		if errB == nil && errC == nil && ended {
			if tokens > 2.01 {
				t.Fatalf("the shared bucket holds %v tokens, want about 2 after one execution", tokens)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the lock: bucket %v (%v), call row ended %v (%v); want both stored", tokens, errB, ended, errC)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
