package httpmw

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestFailureLimit(t *testing.T) {
	l := NewRateLimiter(1, 3)
	clock := time.Unix(1_000_000, 0)
	l.now = func() time.Time { return clock }
	guardCalls := 0
	guard := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			guardCalls++
			if r.Header.Get("Authorization") != "good" {
				http.Error(w, "no", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	h := FailureLimit(l, guard, nil, nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A 401 from behind the guard is not an authentication failure.
		w.WriteHeader(http.StatusUnauthorized)
	}))
	do := func(ip, token string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.RemoteAddr = ip + ":4242"
		r.Header.Set("Authorization", token)
		r.Header.Set("X-Forwarded-For", "203.0.113.99") // must be ignored
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	steps := []struct {
		ip, token  string
		wantStatus int
		wantGuard  bool
	}{
		// Successes are free: more than the burst still reaches the guard.
		{"192.0.2.3", "good", 401, true},
		{"192.0.2.3", "good", 401, true},
		{"192.0.2.3", "good", 401, true},
		{"192.0.2.3", "good", 401, true},
		// Three failures use up 192.0.2.1's burst ...
		{"192.0.2.1", "bad", 401, true},
		{"192.0.2.1", "", 401, true},
		{"192.0.2.1", "bad", 401, true},
		// ... so its next requests, good or bad, never reach the guard.
		{"192.0.2.1", "bad", 429, false},
		{"192.0.2.1", "good", 429, false},
		// Another address is unaffected.
		{"192.0.2.2", "bad", 401, true},
		{"192.0.2.2", "good", 401, true},
		{"192.0.2.3", "bad", 401, true},
	}
	for i, s := range steps {
		before := guardCalls
		w := do(s.ip, s.token)
		if w.Code != s.wantStatus || (guardCalls > before) != s.wantGuard {
			t.Fatalf("step %d (%s %q): status %d, guard called %v; want %d, %v", i, s.ip, s.token, w.Code, guardCalls > before, s.wantStatus, s.wantGuard)
		}
		if w.Code == http.StatusTooManyRequests && w.Header().Get("Retry-After") != "1" {
			t.Errorf("step %d: Retry-After = %q, want 1", i, w.Header().Get("Retry-After"))
		}
	}
	// An address that only succeeds gets no bucket.
	do("192.0.2.9", "good")
	if _, ok := l.buckets["ip:192.0.2.9"]; ok || len(l.buckets) != 3 {
		t.Errorf("buckets %v, want only the three addresses that failed", l.buckets)
	}
	// One token refills after a second.
	clock = clock.Add(time.Second)
	if w := do("192.0.2.1", "good"); w.Code != http.StatusUnauthorized {
		t.Fatalf("after refill: status %d, want the guard to pass the request", w.Code)
	}
}

func TestFailureLimitNil(t *testing.T) {
	called := false
	guard := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { called = true; next.ServeHTTP(w, r) })
	}
	h := FailureLimit(nil, guard, nil, nil)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	if !called {
		t.Fatal("nil limiter must leave the guard in place")
	}
}
