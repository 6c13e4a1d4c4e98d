package progress

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type sink struct {
	mu   sync.Mutex
	got  []*mcp.ProgressNotificationParams
	sent int
}

func (s *sink) send(_ context.Context, p *mcp.ProgressNotificationParams) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, p)
	return nil
}

// Host calls are reported in order until the script reports; from then
// on only growing reports go out, and the one reaching its total is never
// dropped by the rate limit.
func TestReporter(t *testing.T) {
	var s sink
	pr := New(s.send, "tok", 20, func() { s.sent++ })
	ctx := With(context.Background(), pr)
	pr.Call(ctx, "bl.getSessions")
	pr.Call(ctx, "bl.getLaps")
	if len(s.got) != 2 || s.got[1].Progress != 2 || s.got[1].Total != 20 || s.got[1].Message != "bl.getLaps (2/20)" || s.got[1].ProgressToken != "tok" {
		t.Fatalf("call reports: %+v", s.got)
	}
	if _, err := ScriptCall(ctx, json.RawMessage(`[5, 100, "laps read"]`)); err != nil {
		t.Fatal(err)
	}
	pr.Call(ctx, "bl.getLaps") // the script reports: calls no longer do
	Report(ctx, 4, 100, "less")
	for i := range 50 { // past the burst: most are dropped
		Report(ctx, float64(6+i), 100, "")
	}
	Report(ctx, 100, 100, "done")
	Report(ctx, 100, 100, "again")
	last := 0.0
	for i, p := range s.got {
		if i > 0 && p.Progress <= last {
			t.Fatalf("report %d went from %v to %v: progress must only grow", i, last, p.Progress)
		}
		last = p.Progress
	}
	if end := s.got[len(s.got)-1]; end.Progress != 100 || end.Message != "done" {
		t.Fatalf("the report reaching the total was dropped or repeated: %+v", end)
	}
	if s.sent != len(s.got) {
		t.Errorf("sent counted %d of %d", s.sent, len(s.got))
	}
	var nilReporter *Reporter
	nilReporter.Call(ctx, "bl.x") // no progressToken: nothing to do
	Report(context.Background(), 1, 2, "outside an execution")
}

func TestScriptCallArgs(t *testing.T) {
	for _, args := range []string{`[]`, `[-1]`, `["3"]`, `[1, "x"]`, `[1, 2, 3]`, `[1, 2, "m", 4]`, `{}`} {
		if _, err := ScriptCall(context.Background(), json.RawMessage(args)); err == nil || !strings.Contains(err.Error(), "codemode.progress takes") {
			t.Errorf("ScriptCall(%s): %v", args, err)
		}
	}
	var s sink
	ctx := With(context.Background(), New(s.send, 1, 20, func() {}))
	if _, err := ScriptCall(ctx, json.RawMessage(`[1, null, "`+strings.Repeat("é", 150)+`"]`)); err != nil {
		t.Fatal(err)
	}
	if m := s.got[0].Message; len(m) > 203 || !strings.HasSuffix(m, "…") || !strings.HasPrefix(m, "é") {
		t.Errorf("a long message is cut at a character: %d bytes, %q", len(m), m)
	}
}
