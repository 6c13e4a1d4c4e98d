package httpmw_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/internal/httpmw"
)

func TestJSONRPCCost(t *testing.T) {
	for _, tc := range []struct {
		method, body string
		want         int
	}{
		{"POST", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 1},
		{"POST", ` [{"id":1},{"id":2},{"id":3}]`, 3},
		{"POST", `[]`, 1},
		{"POST", `[{"id":1},`, 1},
		{"GET", ``, 1},
	} {
		r := httptest.NewRequest(tc.method, "/mcp", strings.NewReader(tc.body))
		if got := httpmw.JSONRPCCost(r); got != tc.want {
			t.Errorf("%s %q: cost %d, want %d", tc.method, tc.body, got, tc.want)
		}
		if b, _ := io.ReadAll(r.Body); string(b) != tc.body {
			t.Errorf("%q: body after cost is %q", tc.body, b)
		}
	}
}

func TestRateLimitCostChargesEveryBatchMessage(t *testing.T) {
	l := httpmw.NewRateLimiter(0.001, 3)
	h := httpmw.RateLimitCost(l, nil, httpmw.JSONRPCCost)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	post := func(body string) int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("POST", "/mcp", strings.NewReader(body)))
		return w.Code
	}
	if c := post(`[{"id":1},{"id":2},{"id":3},{"id":4}]`); c != http.StatusTooManyRequests {
		t.Fatalf("batch of 4 under a burst of 3: %d", c)
	}
	if c := post(`[{"id":1},{"id":2}]`); c != http.StatusOK {
		t.Fatalf("batch of 2: %d", c)
	}
	if c := post(`[{"id":1},{"id":2}]`); c != http.StatusTooManyRequests {
		t.Fatalf("second batch of 2 with one token left: %d", c)
	}
	if c := post(`{"id":1}`); c != http.StatusOK {
		t.Fatalf("single message with one token left: %d", c)
	}
}
