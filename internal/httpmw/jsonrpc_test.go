package httpmw_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/internal/httpmw"
)

const (
	call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":"return 1"}}}`
	list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

func TestExecutionCost(t *testing.T) {
	for _, tc := range []struct {
		method, body string
		want         int
	}{
		{"POST", call, 1},
		{"POST", `{"jsonrpc":"2.0","id":1,"method":"tools\/call"}`, 1},
		{"POST", list, 0},
		{"POST", `{"jsonrpc":"2.0","method":"initialize","id":0,"params":{"clientInfo":{"name":"call"}}}`, 0},
		{"POST", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, 0},
		{"POST", ` [` + call + `,` + list + `,` + call + `,` + call + `]`, 3},
		{"POST", `[]`, 0},
		{"POST", `[` + call + `,`, 0},
		{"GET", ``, 0},
	} {
		r := httptest.NewRequest(tc.method, "/mcp", strings.NewReader(tc.body))
		if got := httpmw.ExecutionCost(r); got != tc.want {
			t.Errorf("%s %q: cost %d, want %d", tc.method, tc.body, got, tc.want)
		}
		if b, _ := io.ReadAll(r.Body); string(b) != tc.body {
			t.Errorf("%q: body after cost is %q", tc.body, b)
		}
	}
}

func TestRateLimitCostChargesEveryBatchedCall(t *testing.T) {
	l := httpmw.NewRateLimiter(0.001, 3)
	h := httpmw.RateLimitCost(l, nil, httpmw.ExecutionCost, nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	post := func(body string) int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("POST", "/mcp", strings.NewReader(body)))
		return w.Code
	}
	batch := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat(call+",", n), ",") + "]" }
	if c := post(batch(4)); c != http.StatusTooManyRequests {
		t.Fatalf("batch of 4 calls under a burst of 3: %d", c)
	}
	if c := post(batch(2)); c != http.StatusOK {
		t.Fatalf("batch of 2 calls: %d", c)
	}
	if c := post(batch(2)); c != http.StatusTooManyRequests {
		t.Fatalf("second batch of 2 calls with one token left: %d", c)
	}
	if c := post(call); c != http.StatusOK {
		t.Fatalf("single call with one token left: %d", c)
	}
	// The bucket is empty, but messages that are not executions pass.
	for i := range 10 {
		if c := post(list); c != http.StatusOK {
			t.Fatalf("tools/list %d with an empty bucket: %d", i, c)
		}
	}
	if c := post(call); c != http.StatusTooManyRequests {
		t.Fatalf("call with an empty bucket: %d", c)
	}
}

func TestToolCallCostNamesTools(t *testing.T) {
	plain := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_note"}}`
	cost := httpmw.ToolCallCost("execute_code", "execute_readonly_code")
	for _, tc := range []struct {
		body      string
		code, all int
		requests  int
	}{
		{call, 1, 1, 1},
		{plain, 0, 1, 1},
		{`[` + call + `,` + plain + `,` + list + `]`, 1, 2, 3},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}`, 0, 1, 1},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, 0, 0, 1},
		{`not json`, 0, 0, 1},
	} {
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(tc.body))
		if got := cost(r); got != tc.code {
			t.Errorf("%s: code-tool cost %d, want %d", tc.body, got, tc.code)
		}
		if got := httpmw.ExecutionCost(r); got != tc.all {
			t.Errorf("%s: any-tool cost %d, want %d", tc.body, got, tc.all)
		}
		if got := httpmw.RequestCost(r); got != tc.requests {
			t.Errorf("%s: request cost %d, want %d", tc.body, got, tc.requests)
		}
	}
}

func TestJSONRPCBatches(t *testing.T) {
	var seen httpmw.Messages
	h := httpmw.JSONRPC(3)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = httpmw.MessagesOf(r)
		b, _ := io.ReadAll(r.Body)
		w.Write(b)
	}))
	post := func(body, version string) (int, string) {
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		if version != "" {
			r.Header.Set("Mcp-Protocol-Version", version)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	batch := `[` + call + `,` + list + `]`
	for _, v := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		if code, body := post(batch, v); code != http.StatusBadRequest || !strings.Contains(body, "removed in 2025-06-18") {
			t.Errorf("batch under %s: %d %s", v, code, body)
		}
	}
	for _, v := range []string{"", "2025-03-26", "2024-11-05"} {
		if code, body := post(batch, v); code != http.StatusOK || body != batch {
			t.Errorf("batch under %q: %d %s", v, code, body)
		}
		if !seen.Batch || seen.Methods != 2 || len(seen.Calls) != 1 {
			t.Errorf("batch under %q: recorded %+v", v, seen)
		}
	}
	if code, body := post(`[`+list+`,`+list+`,`+list+`,`+list+`]`, ""); code != http.StatusBadRequest || !strings.Contains(body, "at most 3 messages") {
		t.Errorf("batch of 4 over a cap of 3: %d %s", code, body)
	}
	if code, _ := post(call, "2026-07-28"); code != http.StatusOK {
		t.Errorf("single message: %d", code)
	}
}

func TestMessagesInitialize(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       *httpmw.Initialize
	}{
		{"elicitation form", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"c","version":"1"}}}`,
			&httpmw.Initialize{ProtocolVersion: "2025-11-25", Elicitation: true}},
		{"elicitation empty object", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}}}}`,
			&httpmw.Initialize{ProtocolVersion: "2025-06-18", Elicitation: true}},
		{"elicitation null", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":null}}}`,
			&httpmw.Initialize{ProtocolVersion: "2025-06-18"}},
		{"no capabilities, extensions", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"b/x":{},"a/y":{}}}}}`,
			&httpmw.Initialize{ProtocolVersion: "2025-11-25", Extensions: []string{"a/y", "b/x"}}},
		{"malformed params", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":7}`, &httpmw.Initialize{}},
		{"in a batch", `[{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{"elicitation":{}}}}]`, nil},
		{"another method", list, nil},
	} {
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(tc.body))
		got := httpmw.MessagesOf(r).Initialize
		if (got == nil) != (tc.want == nil) || got != nil && (got.ProtocolVersion != tc.want.ProtocolVersion || got.Elicitation != tc.want.Elicitation || strings.Join(got.Extensions, ",") != strings.Join(tc.want.Extensions, ",")) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
