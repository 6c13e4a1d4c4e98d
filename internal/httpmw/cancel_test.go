package httpmw

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestNormalizeID(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want string
		ok   bool
	}{
		{`7`, "n:7", true},
		{` 7 `, "n:7", true},
		{`7.0`, "n:7", true},
		{`7e0`, "n:7", true},
		{`-3`, "n:-3", true},
		{`"7"`, "s:7", true},
		{`"a\"b"`, `s:a"b`, true},
		{`7.5`, "", false},
		{`1e300`, "", false},
		{`null`, "", false},
		{`{}`, "", false},
		{``, "", false},
	} {
		got, ok := normalizeID([]byte(tt.raw))
		if got != tt.want || ok != tt.ok {
			t.Errorf("normalizeID(%s) = %q, %v; want %q, %v", tt.raw, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPeekMessage(t *testing.T) {
	for _, tt := range []struct {
		body string
		want peeked
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}`, peeked{"tools/call", "n:3"}, true},
		{`{"jsonrpc":"2.0","id":"a","method":"tools\/call","params":{}}`, peeked{"tools/call", "s:a"}, true},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"r"}}`, peeked{"notifications/cancelled", "n:3"}, true},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}`, peeked{"notifications/cancelled", "s:a"}, true},
		// A notification carries no id; a call needs one.
		{`{"jsonrpc":"2.0","id":1,"method":"notifications/cancelled","params":{"requestId":3}}`, peeked{}, false},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`, peeked{}, false},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{}}`, peeked{}, false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, peeked{}, false},
		{`[{"jsonrpc":"2.0","id":1,"method":"tools/call"}]`, peeked{}, false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call"`, peeked{}, false},
	} {
		got, ok := peekMessage([]byte(tt.body))
		if got != tt.want || ok != tt.ok {
			t.Errorf("peekMessage(%s) = %+v, %v; want %+v, %v", tt.body, got, ok, tt.want, tt.ok)
		}
	}
}

// cancelHarness serves Cancellation in front of a handler whose tools/call
// blocks until its Cancellable context ends.
type cancelHarness struct {
	reg     *Cancels
	h       http.Handler
	running chan context.Context
	bodies  chan string
}

func newCancelHarness(t *testing.T) *cancelHarness {
	t.Helper()
	ch := &cancelHarness{reg: NewCancels(), running: make(chan context.Context, 4), bodies: make(chan string, 8)}
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				w.WriteHeader(http.StatusRequestEntityTooLarge)
				return
			}
			t.Errorf("read: %v", err)
		}
		ch.bodies <- string(b)
		if !strings.Contains(string(b), `"tools/call"`) {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		ctx, stop := Cancellable(r.Context())
		defer stop()
		ch.running <- ctx
		<-ctx.Done()
		if !errors.Is(context.Cause(ctx), ErrCancelledByClient) {
			t.Errorf("cause %v", context.Cause(ctx))
		}
	})
	user := func(r *http.Request) string { return r.Header.Get("X-User") }
	ch.h = BodyLimit(1 << 10)(Cancellation(ch.reg, user, nil)(next))
	return ch
}

func (ch *cancelHarness) post(user, body string) int {
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	r.Header.Set("X-User", user)
	w := httptest.NewRecorder()
	ch.h.ServeHTTP(w, r)
	return w.Code
}

const (
	callBody   = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":"return 1"}}}`
	cancelBody = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"stop"}}`
)

func TestCancellation(t *testing.T) {
	ch := newCancelHarness(t)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); ch.post("alice", callBody) }()
	ctx := <-ch.running
	if got := <-ch.bodies; got != callBody {
		t.Fatalf("next read %q", got)
	}
	if n := ch.reg.Len(); n != 1 {
		t.Fatalf("Len = %d, want 1", n)
	}

	// Another principal, or an untracked (empty) key, cancels nothing.
	for _, user := range []string{"bob", ""} {
		if code := ch.post(user, cancelBody); code != http.StatusAccepted {
			t.Fatalf("%q: status %d", user, code)
		}
		<-ch.bodies
		if ctx.Err() != nil {
			t.Fatalf("%q cancelled alice's call", user)
		}
	}
	if code := ch.post("alice", cancelBody); code != http.StatusAccepted {
		t.Fatalf("status %d", code)
	}
	if got := <-ch.bodies; got != cancelBody {
		t.Fatalf("next read %q", got)
	}
	if ctx.Err() == nil {
		t.Fatal("alice's call still running after her cancellation was answered")
	}
	wg.Wait()
	if n, c := ch.reg.Len(), ch.reg.Cancelled(); n != 0 || c != 1 {
		t.Fatalf("Len = %d, Cancelled = %d; want 0, 1", n, c)
	}
}

// A cancellation that reaches the slot before the handler joins it still
// cancels the handler's context.
func TestCancellableAfterFire(t *testing.T) {
	s := &cancelSlot{}
	s.fire()
	ctx, stop := Cancellable(context.WithValue(context.Background(), cancelSlotKey{}, s))
	defer stop()
	if !errors.Is(context.Cause(ctx), ErrCancelledByClient) {
		t.Fatalf("cause %v", context.Cause(ctx))
	}
	// Without a slot the context is returned as is.
	bg := context.Background()
	if got, stop := Cancellable(bg); got != bg {
		t.Fatal("Cancellable wrapped a context without a slot")
	} else {
		stop()
	}
}

func TestCancellationPassesBodyErrors(t *testing.T) {
	ch := newCancelHarness(t)
	big := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"code":"` + strings.Repeat("x", 2<<10) + `"}}`
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(big))
	r.ContentLength = -1 // chunked: the limit trips while reading
	r.Header.Set("X-User", "alice")
	w := httptest.NewRecorder()
	ch.h.ServeHTTP(w, r)
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", w.Code)
	}
	if n := ch.reg.Len(); n != 0 {
		t.Fatalf("Len = %d after a refused body", n)
	}
}

func BenchmarkCancellation(b *testing.B) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) })
	user := func(*http.Request) string { return "alice" }
	code := strings.Repeat("x", 8<<10)
	for _, bb := range []struct{ name, body string }{
		{"tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`},
		{"tools/call 8KB", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":"` + code + `"}}}`},
	} {
		for _, mw := range []struct {
			name string
			h    http.Handler
		}{
			{"direct", next},
			{"cancellation", Cancellation(NewCancels(), user, nil)(next)},
		} {
			b.Run(bb.name+"/"+mw.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(bb.body))
					mw.h.ServeHTTP(httptest.NewRecorder(), r)
				}
			})
		}
	}
}

// A late cancellation for a call that has just ended must not stop another
// session's call that uses the same id: the ended id makes it ambiguous
// until EndedCallMemory has passed.
func TestCancelAfterSameIDEnded(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	reg := NewCancels()
	reg.now = func() time.Time { return now }

	releaseA, _ := reg.Register(ctx, "alice", "n:5", func() { t.Error("the ended call was cancelled") })
	releaseA()
	cancelledB := false
	releaseB, _ := reg.Register(ctx, "alice", "n:5", func() { cancelledB = true })
	defer releaseB()

	_ = reg.Cancel(ctx, "alice", "n:5")
	if cancelledB {
		t.Fatal("a cancellation that may name the ended call stopped the other session's call")
	}
	// Another principal's ended call with the same id does not count.
	releaseC, _ := reg.Register(ctx, "bob", "n:6", func() {})
	releaseC()
	cancelledD := false
	releaseD, _ := reg.Register(ctx, "alice", "n:6", func() { cancelledD = true })
	defer releaseD()
	_ = reg.Cancel(ctx, "alice", "n:6")
	if !cancelledD {
		t.Fatal("bob's ended call made alice's id ambiguous")
	}

	now = now.Add(EndedCallMemory + time.Second)
	_ = reg.Cancel(ctx, "alice", "n:5")
	if !cancelledB {
		t.Fatal("the id stayed ambiguous after EndedCallMemory")
	}
	if n := reg.Cancelled(); n != 2 {
		t.Fatalf("Cancelled = %d, want 2", n)
	}
}

// The memory of ended calls is bounded: past maxEndedCalls the oldest are
// forgotten, and expired ones are dropped as time passes.
func TestEndedCallsBounded(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	reg := NewCancels()
	reg.now = func() time.Time { return now }
	for i := range maxEndedCalls + 10 {
		release, _ := reg.Register(ctx, "k", strconv.Itoa(i), func() {})
		release()
	}
	if n := len(reg.ended); n != maxEndedCalls {
		t.Fatalf("%d ended ids remembered, want %d", n, maxEndedCalls)
	}
	if reg.ended[callKey{"k", "0"}] != 0 || reg.ended[callKey{"k", strconv.Itoa(maxEndedCalls + 9)}] != 1 {
		t.Fatal("the oldest ends were not the ones forgotten")
	}
	now = now.Add(EndedCallMemory + time.Second)
	_ = reg.Cancel(ctx, "k", "x")
	if n, live := len(reg.ended), len(reg.endedLog)-reg.endedHead; n != 0 || live != 0 {
		t.Fatalf("after expiry: %d ids, %d log entries remembered", n, live)
	}
}

// Requests of a session (an Mcp-Session-Id header) are the session's to
// cancel: their calls are not registered, and their cancellations do not
// reach the calls of stateless requests.
func TestCancellationLeavesSessionsAlone(t *testing.T) {
	ch := newCancelHarness(t)
	var slots, registered []bool
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, hasSlot := r.Context().Value(cancelSlotKey{}).(*cancelSlot)
		slots = append(slots, hasSlot)
		registered = append(registered, ch.reg.Len() > 0)
		w.WriteHeader(http.StatusAccepted)
	})
	h := Cancellation(ch.reg, func(*http.Request) string { return "carol" }, nil)(inner) // not alice: her ended call would make the cancellation below ambiguous
	post := func(session, body string) {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		if session != "" {
			r.Header.Set(SessionIDHeader, session)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	post("S1", callBody)
	post("", callBody)
	if want := []bool{false, true}; slots[0] != want[0] || slots[1] != want[1] || registered[0] || !registered[1] {
		t.Fatalf("slots %v, registered %v: want a slot and a registration for the stateless call only", slots, registered)
	}

	// A stateless call in flight is not cancelled by a session's notification.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); ch.post("alice", callBody) }()
	ctx := <-ch.running
	<-ch.bodies
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(cancelBody))
	r.Header.Set("X-User", "alice")
	r.Header.Set(SessionIDHeader, "S1")
	ch.h.ServeHTTP(httptest.NewRecorder(), r)
	<-ch.bodies
	if ctx.Err() != nil || ch.reg.Cancelled() != 0 {
		t.Fatal("a session's notification cancelled a stateless call")
	}
	ch.post("alice", cancelBody)
	<-ch.bodies
	wg.Wait()
	if ch.reg.Cancelled() != 1 {
		t.Fatal("the stateless notification did not cancel the call")
	}
}
