package codemode_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/saved"
)

// Saving, publishing and removing a saved function are audited, from a
// script (with the execution's trace id and tool) and from Go (without a
// tool): the subject, name, version, tier and the code's SHA-256, never
// the code.
func TestSavedFunctionsAudited(t *testing.T) {
	lib := saved.New(nil)
	ts, _ := startApprovals(t, func(o *codemode.Options) { o.Saved = lib })
	cs := ts.connectAt(t, ts.token("alice"), "2026-07-28", nil)
	if res := run(t, cs, saveCancelledCleanup); res.IsError {
		t.Fatal(text(res))
	}
	ctx := context.Background()
	if _, err := lib.Save(ctx, saved.NewEnv("alice", nil, false), saved.Draft{Name: "one", Description: "One.", Code: "return 1", Input: json.RawMessage(`{"type":"object"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := lib.Publish(ctx, "alice", "cleanup", true); err != nil {
		t.Fatal(err)
	}
	if err := lib.Publish(ctx, "alice", "cleanup", false); err != nil {
		t.Fatal(err)
	}
	if res := run(t, cs, `await codemode.removeSaved("cleanup"); return 1`); res.IsError {
		t.Fatal(text(res))
	}
	// Refused changes are not audited.
	if res := run(t, cs, `try { await codemode.removeSaved("nothing") } catch (e) { return e.message }`); !strings.Contains(text(res), "not found") {
		t.Fatal(text(res))
	}
	if err := lib.Publish(ctx, "bob", "one", true); err == nil {
		t.Fatal("bob published alice's function")
	}

	var code string
	_ = json.Unmarshal([]byte(`"const rs = await races.listRaces({ status: input.status });\nfor (const r of rs) await races.deleteRace({ id: r.id });\nreturn rs.length;"`), &code)
	sum := sha256.Sum256([]byte(code))
	cleanupSum := hex.EncodeToString(sum[:])
	sum = sha256.Sum256([]byte("return 1"))
	oneSum := hex.EncodeToString(sum[:])

	type want struct {
		kind     codemode.AuditKind
		function string
		version  int
		sha      string
		script   bool
	}
	wants := []want{
		{codemode.FunctionSaved, "saved.cleanup", 1, cleanupSum, true},
		{codemode.FunctionSaved, "saved.one", 1, oneSum, false},
		{codemode.FunctionPublished, "saved.cleanup", 1, cleanupSum, false},
		{codemode.FunctionUnpublished, "saved.cleanup", 1, cleanupSum, false},
		{codemode.FunctionRemoved, "saved.cleanup", 1, cleanupSum, true},
	}
	traces := map[string]bool{} // the trace ids of the executions
	var got []codemode.AuditEvent
	for _, ev := range ts.audit.all() {
		switch ev.Kind {
		case codemode.ExecutionStarted:
			traces[ev.TraceID] = true
		case codemode.FunctionSaved, codemode.FunctionPublished, codemode.FunctionUnpublished, codemode.FunctionRemoved:
			got = append(got, ev)
		}
	}
	if len(got) != len(wants) {
		t.Fatalf("got %d events, want %d: %+v", len(got), len(wants), got)
	}
	for i, w := range wants {
		ev := got[i]
		if ev.Kind != w.kind || ev.Function != w.function || ev.Version != w.version || ev.CodeSHA256 != w.sha || ev.Subject != "alice" {
			t.Errorf("event %d: %+v, want %+v", i, ev, w)
		}
		if w.kind != codemode.FunctionSaved || w.function == "saved.cleanup" {
			if ev.Tier != "MUTATING" {
				t.Errorf("event %d: tier %q", i, ev.Tier)
			}
		} else if ev.Tier != "READ-ONLY" {
			t.Errorf("event %d: tier %q", i, ev.Tier)
		}
		if w.script != (ev.Tool == codemode.ToolName) || w.script != traces[ev.TraceID] {
			t.Errorf("event %d from a script %v: tool %q, trace %q", i, w.script, ev.Tool, ev.TraceID)
		}
		b, _ := json.Marshal(ev)
		if strings.Contains(string(b), "listRaces") || !strings.Contains(string(b), `"version":1`) {
			t.Errorf("event %d as JSON: %s", i, b)
		}
	}
}
