package mcpsource

import (
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// FuzzMendList feeds arbitrary messages to the byte-level surgery on
// tools/list answers: it must not panic, must leave a message without
// deep tools unchanged, and must turn valid JSON into valid JSON that
// keeps every tool it did not report.
func FuzzMendList(f *testing.F) {
	deep := strings.Repeat(`{"a":`, 1100) + `1` + strings.Repeat(`}`, 1100)
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"ok","inputSchema":{"type":"object"}}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"deep","inputSchema":` + deep + `},{"name":"ok","inputSchema":{}}],"nextCursor":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"inputSchema":` + deep + `,"name":"d\"e"}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"nextCursor":"[","tools":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + deep + `]}}`,
		`[{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}]`,
		`{"result":{"tools":[{"name":"x"`, `]]]}}}`, ``,
	} {
		f.Add([]byte(seed))
	}
	u := &Upstream{opts: Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	f.Fuzz(func(t *testing.T, msg []byte) {
		u.unreadable = nil
		out := u.mendList(msg)
		if len(u.unreadable) == 0 {
			if string(out) != string(msg) {
				t.Fatalf("changed without reporting a tool:\n%s\n%s", msg, out)
			}
			return
		}
		if json.Valid(msg) && !json.Valid(out) {
			t.Fatalf("valid JSON became invalid:\n%.300s\n%.300s", msg, out)
		}
		if depth(out) > depth(msg) {
			t.Fatalf("deeper after mending")
		}
	})
}
