package httpmw

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The CORS answers in detail: wildcard origins, methods, header names in
// any case and order, what a refused preflight lacks, Vary and max age.
func TestCORSRules(t *testing.T) {
	origins, err := Origins([]string{"https://*.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	var reached int
	h := CORS(origins)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached++ }))
	preflight := func(origin, method, headers string) http.Header {
		req := httptest.NewRequest(http.MethodOptions, "/mcp", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", method)
		if headers != "" {
			req.Header.Set("Access-Control-Request-Headers", headers)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusNoContent {
			t.Errorf("preflight %s %s: status %d", origin, method, rec.Code)
		}
		return rec.Header()
	}
	for _, tt := range []struct {
		origin, method, headers string
		allowed                 bool
	}{
		{"https://app.example.com", "POST", "Mcp-Session-Id, Authorization", true},
		{"HTTPS://APP.EXAMPLE.COM", "DELETE", "", true},
		{"https://a.b.example.com", "GET", "last-event-id,,accept", true},
		{"https://.example.com", "POST", "", false},
		{"https://example.com", "POST", "", false},
		{"https://app.example.com.evil", "POST", "", false},
		{"https://app.example.com", "PUT", "", false},
		{"https://app.example.com", "POST", "authorization, cookie", false},
		{"", "POST", "", false},
	} {
		got := preflight(tt.origin, tt.method, tt.headers)
		if allowed := got.Get("Access-Control-Allow-Origin") == tt.origin && tt.origin != ""; allowed != tt.allowed {
			t.Errorf("%q %s %q: allowed %v, want %v (%v)", tt.origin, tt.method, tt.headers, allowed, tt.allowed, got)
		}
		if tt.allowed && (got.Get("Access-Control-Allow-Methods") != tt.method || got.Get("Access-Control-Max-Age") != "600" ||
			got.Get("Access-Control-Allow-Headers") != tt.headers) {
			t.Errorf("%q: %v", tt.origin, got)
		}
		if !tt.allowed && (got.Get("Access-Control-Allow-Methods") != "" || got.Get("Access-Control-Allow-Headers") != "") {
			t.Errorf("refused %q still allows: %v", tt.origin, got)
		}
		if !strings.Contains(got.Get("Vary"), "Access-Control-Request-Headers") {
			t.Errorf("%q: Vary %q", tt.origin, got.Get("Vary"))
		}
	}
	if reached != 0 {
		t.Fatalf("%d preflights reached the handler", reached)
	}
	long := strings.Repeat("accept,", maxRequestHeaders/7+1)
	if got := preflight("https://app.example.com", "POST", long); got.Get("Access-Control-Allow-Origin") != "" {
		t.Error("a preflight asking for over 4 KiB of header names was allowed")
	}

	for _, tt := range []struct {
		origin, method string
		allowed        bool
	}{
		{"https://app.example.com", http.MethodPost, true},
		{"https://app.example.com", http.MethodPut, false},
		{"https://evil.example", http.MethodPost, false},
		{"", http.MethodPost, false},
	} {
		req := httptest.NewRequest(tt.method, "/mcp", nil)
		if tt.origin != "" {
			req.Header.Set("Origin", tt.origin)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		got := rec.Header()
		if (got.Get("Access-Control-Allow-Origin") == tt.origin && tt.origin != "") != tt.allowed || (got.Get("Access-Control-Expose-Headers") != "") != tt.allowed {
			t.Errorf("%s from %q: %v", tt.method, tt.origin, got)
		}
		if got.Get("Vary") != "Origin" {
			t.Errorf("%s from %q: Vary %q", tt.method, tt.origin, got.Get("Vary"))
		}
	}
	if reached != 4 {
		t.Fatalf("%d requests reached the handler, want 4", reached)
	}
}
