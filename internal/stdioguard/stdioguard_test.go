package stdioguard

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// Each line past a limit is replaced by one that fails only its own
// exchange; the lines around it pass unchanged.
func TestGuard(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	big := strings.Repeat("x", MaxLine)
	ok := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, tt := range []struct {
		name, line string
		want       string // the replacement; "" when dropped
	}{
		{"deep answer", `{"jsonrpc":"2.0","id":7,"result":{"content":` + deep + `}}`, `"error":{"code":-32600,"message":"the server refused the answer: the message was nested 1003 levels deep; the server accepts at most 1000"}`},
		{"large answer", `{"jsonrpc":"2.0","id":"a-1","result":{"text":"` + big + `"}}`, `{"jsonrpc":"2.0","id":"a-1","error":{"code":-32600,"message":"the server refused the answer: the message was 4194354 bytes; the server accepts at most 4194304"}}`},
		{"deep request", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"arguments":` + deep + `}}`, `{"jsonrpc":"2.0","id":8,"method":"codemode/refused-message"}`},
		{"large notification", `{"jsonrpc":"2.0","method":"notifications/x","params":{"text":"` + big + `"}}`, ""},
		{"deep without id", deep, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := ok + "\n" + tt.line + "\n" + ok + "\n"
			b, err := io.ReadAll(New(io.NopCloser(strings.NewReader(in))))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			want := 3
			if tt.want == "" {
				want = 2
			}
			if len(lines) != want || lines[0] != ok || lines[len(lines)-1] != ok {
				t.Fatalf("got %d lines, want %d around the replaced one: %.200q", len(lines), want, b)
			}
			if tt.want == "" {
				return
			}
			if !strings.Contains(lines[1], tt.want) {
				t.Errorf("replacement %q, want it to contain %q", lines[1], tt.want)
			}
			if !json.Valid([]byte(lines[1])) {
				t.Errorf("replacement is not JSON: %q", lines[1])
			}
		})
	}
}

// topLevelID reads only the outermost object's members.
func TestTopLevelID(t *testing.T) {
	for _, tt := range []struct {
		msg     string
		id      string
		request bool
	}{
		{`{"params":{"id":9,"method":"x"},"id":3}`, "3", false},
		{`{"id" : "q\"1", "method":"m"}`, `"q\"1"`, true},
		{`{"result":{"id":2}}`, "", false},
	} {
		id, req := topLevelID([]byte(tt.msg))
		if string(id) != tt.id || req != tt.request {
			t.Errorf("topLevelID(%s) = %s, %v; want %s, %v", tt.msg, id, req, tt.id, tt.request)
		}
	}
}
