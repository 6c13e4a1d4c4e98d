package httpmw

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestOrigins(t *testing.T) {
	tests := []struct {
		extra   []string
		want    int
		wantErr bool
	}{
		{nil, 3, false},
		{[]string{"https://app.example.com"}, 4, false},
		{[]string{"https://claude.ai/"}, 3, false},
		{[]string{"https://*.example.com"}, 4, false},
		{[]string{"*"}, 0, true},
		{[]string{""}, 0, true},
		{[]string{"null"}, 0, true},
		{[]string{"https://example.com/path"}, 0, true},
		{[]string{"ftp://example.com"}, 0, true},
		{[]string{"https://*.*.example.com"}, 0, true},
	}
	for _, tt := range tests {
		got, err := Origins(tt.extra)
		if tt.wantErr {
			if !errors.Is(err, ErrOrigin) {
				t.Errorf("Origins(%q) error = %v, want ErrOrigin", tt.extra, err)
			}
			continue
		}
		if err != nil || len(got) != tt.want {
			t.Errorf("Origins(%q) = %q, %v; want %d origins", tt.extra, got, err, tt.want)
		}
	}
}

func TestCORSPreflight(t *testing.T) {
	origins, _ := Origins([]string{"https://app.example.com"})
	h := CORS(origins)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusMethodNotAllowed) // what the MCP handler does with OPTIONS
	}))
	tests := []struct {
		origin, headers string
		allowed         bool
	}{
		{"https://claude.ai", "authorization,content-type,mcp-protocol-version,mcp-session-id", true},
		{"https://chatgpt.com", "accept,last-event-id,mcp-method,mcp-name", true},
		{"https://app.example.com", "authorization", true},
		{"https://evil.example", "authorization", false},
		{"https://claude.ai", "x-unlisted", false},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(http.MethodOptions, "/mcp", nil)
		req.Header.Set("Origin", tt.origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", tt.headers)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		got := rec.Header().Get("Access-Control-Allow-Origin")
		if tt.allowed && got != tt.origin {
			t.Errorf("%s %s: Allow-Origin = %q, want %q", tt.origin, tt.headers, got, tt.origin)
		}
		if !tt.allowed && got != "" {
			t.Errorf("%s %s: Allow-Origin = %q, want none", tt.origin, tt.headers, got)
		}
		if rec.Code == http.StatusMethodNotAllowed {
			t.Errorf("%s: preflight reached the inner handler", tt.origin)
		}
	}

	// Actual request: exposed headers are listed for allowed origins.
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Origin", "https://claude.ai")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if exp := rec.Header().Get("Access-Control-Expose-Headers"); !strings.Contains(exp, "Www-Authenticate") && !strings.Contains(exp, "WWW-Authenticate") {
		t.Errorf("Expose-Headers = %q, want WWW-Authenticate", exp)
	}
}

func TestCORSEmptyListIsNotAllowAll(t *testing.T) {
	h := CORS(nil)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	req := httptest.NewRequest(http.MethodOptions, "/mcp", nil)
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if got := rec.Header().Get("Access-Control-Allow-Origin"); got != "" {
		t.Fatalf("empty list allowed %q", got)
	}
}

func TestBodyLimit(t *testing.T) {
	h := BodyLimit(10)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		}
	}))
	for _, tt := range []struct {
		body    string
		chunked bool
		want    int
	}{
		{"0123456789", false, 200},
		{"0123456789x", false, 413},
		{"0123456789x", true, 413},
	} {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tt.body))
		if tt.chunked {
			req.ContentLength = -1
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tt.want {
			t.Errorf("body %q chunked=%v: status %d, want %d", tt.body, tt.chunked, rec.Code, tt.want)
		}
	}
}

func TestRateLimit(t *testing.T) {
	l := NewRateLimiter(1, 2)
	now := time.Unix(1000, 0)
	l.now = func() time.Time { return now }
	h := RateLimit(l, func(r *http.Request) string { return r.Header.Get("X-User") })(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	do := func(user string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/", nil)
		req.Header.Set("X-User", user)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for i, want := range []int{200, 200, 429, 429} {
		if rec := do("alice"); rec.Code != want {
			t.Fatalf("alice request %d: %d, want %d", i, rec.Code, want)
		} else if want == 429 && rec.Header().Get("Retry-After") != "1" {
			t.Fatalf("Retry-After = %q, want 1", rec.Header().Get("Retry-After"))
		}
	}
	if rec := do("bob"); rec.Code != 200 {
		t.Fatalf("bob shares alice's bucket: %d", rec.Code)
	}
	if rec := do(""); rec.Code != 200 {
		t.Fatalf("anonymous: %d", rec.Code)
	}
	now = now.Add(time.Second)
	if rec := do("alice"); rec.Code != 200 {
		t.Fatalf("alice after refill: %d", rec.Code)
	}
	now = now.Add(time.Hour)
	do("carol") // sweeps idle buckets
	l.mu.Lock()
	n := len(l.buckets)
	l.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d buckets after sweep, want 1", n)
	}
}
