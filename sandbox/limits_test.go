package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestCodeTooLarge checks that oversized code is refused before anything
// runs, with a hint to split the work.
func TestCodeTooLarge(t *testing.T) {
	sb := inProcessSandbox(t, Limits{MaxCodeBytes: 100})
	src := "return 1;" + strings.Repeat(" ", 100)
	res, err := sb.Run(context.Background(), src, nil)
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindCodeTooLarge || res != nil {
		t.Fatalf("Run = %v, %v; want CODE_TOO_LARGE", res, err)
	}
	if !strings.Contains(e.Message, "109 bytes, over the 100-byte limit") || !strings.Contains(e.Message, "Split the work") {
		t.Errorf("message = %q", e.Message)
	}
	// A broken program over the limit is reported as too large, not as a
	// syntax error: nothing was transpiled.
	if _, err := sb.Run(context.Background(), strings.Repeat("(", 101), nil); !errors.Is(err, &Error{Kind: KindCodeTooLarge}) {
		t.Errorf("broken large program: %v", err)
	}
}

// TestCallLimit checks that call MaxCalls+1 rejects with CALL_LIMIT and the
// count, and that a script may catch it.
func TestCallLimit(t *testing.T) {
	host := echoHost("ns.f")
	forEachMode(t, Limits{MaxCalls: 20}, func(t *testing.T, sb *Sandbox) {
		res, e := runErr(t, sb, "for (let i = 0; i < 25; i++) {\n  await ns.f({ i });\n}", host)
		if e.Kind != KindCallLimit || e.CallsUsed != 20 || e.Line != 2 {
			t.Errorf("error = %+v", e)
		}
		if !strings.Contains(e.Message, "already made 20 host calls") {
			t.Errorf("message = %q", e.Message)
		}
		if len(res.Calls) != 21 || res.Calls[20].Outcome != OutcomeRejected || res.Calls[19].Outcome != OutcomeOK {
			t.Errorf("calls = %d, last %+v", len(res.Calls), res.Calls[len(res.Calls)-1])
		}
		// Concurrent calls count the same way.
		_, e = runErr(t, sb, "await Promise.all(Array.from({ length: 21 }, (_, i) => ns.f({ i })))", host)
		if e.Kind != KindCallLimit {
			t.Errorf("Promise.all over 21 calls: %v", e)
		}
		// Caught, the script goes on with what it has.
		res = mustRun(t, sb, "let n = 0;\nfor (let i = 0; i < 22; i++) { try { await ns.f(); n++; } catch (e: any) { return [n, e.code, e.callsUsed]; } }", host)
		if string(res.Value) != `[20,"CALL_LIMIT",20]` {
			t.Errorf("caught = %s", res.Value)
		}
	})
}

// TestOutputCap checks that logs and the return value are cut at
// MaxOutputBytes with a marker the model can act on.
func TestOutputCap(t *testing.T) {
	forEachMode(t, Limits{MaxOutputBytes: 1000}, func(t *testing.T, sb *Sandbox) {
		res := mustRun(t, sb, "for (let i = 0; i < 1000; i++) console.log('line ' + i + ' ' + 'x'.repeat(20));\nreturn 1", nil)
		if !res.Truncated {
			t.Fatal("not truncated")
		}
		last := res.Logs[len(res.Logs)-1]
		if last.Level != "warn" || !strings.Contains(last.Message, "output truncated") || !strings.Contains(last.Message, "Log less or return less") {
			t.Errorf("marker = %+v", last)
		}
		total := 0
		for _, l := range res.Logs[:len(res.Logs)-1] {
			total += len(l.Message)
		}
		if total+len(res.Value) > 1000 || total < 900 {
			t.Errorf("logs hold %d bytes and the value %d, want close to the 1000-byte cap", total, len(res.Value))
		}
		if string(res.Value) != "1" {
			t.Errorf("value after truncated logs = %s", res.Value)
		}

		// A return value over the cap becomes a string with its beginning and
		// the marker.
		res = mustRun(t, sb, "return Array.from({ length: 500 }, (_, i) => ({ i }))", nil)
		var s string
		if err := json.Unmarshal(res.Value, &s); err != nil {
			t.Fatalf("truncated value %s is not a JSON string: %v", res.Value, err)
		}
		if !res.Truncated || !strings.HasPrefix(s, `[{"i":0},{"i":1}`) || !strings.Contains(s, "return value truncated: it was 4891 bytes") || len(res.Value) > 1000 {
			t.Errorf("truncated value = %q", s)
		}

		// Under the cap nothing changes.
		res = mustRun(t, sb, "console.log('small'); return { ok: true }", nil)
		if res.Truncated || string(res.Value) != `{"ok":true}` {
			t.Errorf("small output = %+v", res)
		}
	})
}

// TestTimeouts checks that scripts that never end are stopped with TIMEOUT:
// a tight loop, a loop of promises, a slow host call and a catastrophic
// regular expression (which becomes a catchable error first).
func TestTimeouts(t *testing.T) {
	host := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){
		"ns.slow": func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			<-ctx.Done() // only an ended execution releases it
			return nil, ctx.Err()
		},
	}}
	tests := []struct {
		name, src string
		// grows says the script's heap grows without bound (each promise
		// stays reachable from the next), so in worker mode the memory
		// watchdog may stop it before the timeout does: either limit is
		// doing its job.
		grows bool
	}{
		{"tight loop", "for (;;) {}", false},
		{"loop with finally", "try { while (true) {} } finally { console.log('finally') }", false},
		{"promise flood", "const spin = (): Promise<void> => Promise.resolve().then(spin);\nawait spin();", true},
		{"slow host call", "await ns.slow()", false},
		{"regexp in a loop", "for (;;) { try { /(a+)+(?=b)/.test('a'.repeat(30)) } catch {} }", false},
	}
	forEachMode(t, Limits{Timeout: 300 * time.Millisecond}, func(t *testing.T, sb *Sandbox) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				res, e := runErr(t, sb, tc.src, host)
				memoryStop := tc.grows && sb.Mode() == ModeWorker && e.Kind == KindMemoryLimit &&
					strings.Contains(e.Message, "32 MiB memory limit")
				if !memoryStop && (e.Kind != KindTimeout || !strings.Contains(e.Message, "300ms")) {
					t.Errorf("error = %v, want TIMEOUT", e)
				}
				// In process the logs so far come back; a worker killed at
				// the hard deadline may lose them.
				if res == nil && sb.Mode() == ModeInProcess {
					t.Error("no partial result")
				}
			})
		}
		// The sandbox is fine afterwards.
		if res := mustRun(t, sb, "return 2", nil); string(res.Value) != "2" {
			t.Errorf("after timeouts: %s", res.Value)
		}
	})
}

// TestCatastrophicRegexp checks that a backtracking regular expression
// fails with an explanation instead of silently not matching.
func TestCatastrophicRegexp(t *testing.T) {
	sb := inProcessSandbox(t, Limits{})
	_, e := runErr(t, sb, "const s = 'a'.repeat(40);\nreturn /(a+)+(?=b)/.test(s)", nil)
	if e.Kind != KindRuntime || !strings.Contains(e.Message, "RangeError: the regular expression /(a+)+(?=b)/ took longer than") || e.Line != 2 {
		t.Errorf("error = %+v", e)
	}
}

// TestCancellation checks that the caller's context ends an execution.
func TestCancellation(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		started := make(chan struct{})
		host := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){
			"ns.started": func(context.Context, json.RawMessage) (json.RawMessage, error) {
				close(started)
				return json.RawMessage("1"), nil
			},
		}}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-started; cancel() }()
		_, err := sb.Run(ctx, "await ns.started();\nfor (;;) {}", host)
		if !errors.Is(err, &Error{Kind: KindCancelled}) {
			t.Errorf("cancelled run: %v", err)
		}
		// An already-ended context runs nothing.
		if _, err := sb.Run(ctx, "return 1", nil); !errors.Is(err, &Error{Kind: KindCancelled}) {
			t.Errorf("dead context: %v", err)
		}
	})
}

// TestNeverSettles checks that awaiting something that can never settle
// ends at once with a clear error.
func TestNeverSettles(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		_, e := runErr(t, sb, "await new Promise(() => {});", nil)
		if e.Kind != KindRuntime || !strings.Contains(e.Message, "can never settle") {
			t.Errorf("error = %v", e)
		}
	})
}

// TestRunLimitsOnlyLower checks that per-execution limits can tighten the
// sandbox's limits but never loosen them.
func TestRunLimitsOnlyLower(t *testing.T) {
	sb := inProcessSandbox(t, Limits{MaxCalls: 3, MaxCodeBytes: 200})
	host := echoHost("ns.f")
	five := "for (let i = 0; i < 5; i++) await ns.f();"
	for _, tc := range []struct {
		over      Limits
		wantCalls int
	}{
		{Limits{}, 3},
		{Limits{MaxCalls: 2}, 2},
		{Limits{MaxCalls: 100}, 3},
	} {
		_, err := sb.RunWith(context.Background(), five, host, &RunOptions{Limits: tc.over})
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindCallLimit || e.CallsUsed != tc.wantCalls {
			t.Errorf("override %+v: %v (calls %d), want CALL_LIMIT after %d", tc.over, err, e.CallsUsed, tc.wantCalls)
		}
	}
	long := "return 1;" + strings.Repeat(" ", 250)
	if _, err := sb.RunWith(context.Background(), long, nil, &RunOptions{Limits: Limits{MaxCodeBytes: 1 << 20}}); !errors.Is(err, &Error{Kind: KindCodeTooLarge}) {
		t.Errorf("raised code limit accepted: %v", err)
	}
	got := sb.Limits()
	want := Limits{Timeout: DefaultTimeout, MemoryBytes: DefaultMemoryBytes, MaxCalls: 3, MaxCodeBytes: 200, MaxOutputBytes: DefaultMaxOutputBytes}
	if got != want {
		t.Errorf("Limits() = %+v, want %+v", got, want)
	}
}

// TestClosed checks Run after Close.
func TestClosed(t *testing.T) {
	sb, err := New(&Options{Mode: ModeInProcess})
	if err != nil {
		t.Fatal(err)
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sb.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := sb.Run(context.Background(), "return 1", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close: %v", err)
	}
}

// TestErrorJSON checks that errors and results survive a JSON round trip,
// as they do across the worker pipe.
func TestErrorJSON(t *testing.T) {
	sb := inProcessSandbox(t, Limits{})
	res, e := runErr(t, sb, "console.log('hi');\nthrow new Error('x')", nil)
	for _, v := range []any{e, res} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		back := map[string]any{}
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal(e)
	var back Error
	if err := json.Unmarshal(b, &back); err != nil || back.Kind != KindRuntime || back.Line != 2 || back.Error() != e.Error() {
		t.Errorf("round trip = %+v, %v", back, err)
	}
	if got := e.Error(); got != "RUNTIME at agent.ts:2:7: Error: x" {
		t.Errorf("Error() = %q", got)
	}
}

// TestCallLimitRetries checks that a script catching the call limit's
// refusal may go on (and return what it has), but one that keeps calling
// is stopped with CALL_LIMIT after maxRefusedCalls refusals, long before
// the time limit, without the record growing.
func TestCallLimitRetries(t *testing.T) {
	forEachMode(t, Limits{MaxCalls: 2}, func(t *testing.T, sb *Sandbox) {
		res := mustRun(t, sb, "let refused = 0;\nfor (let i = 0; i < 10; i++) { try { await ns.f(); } catch { refused++; } }\nreturn refused;", echoHost("ns.f"))
		if string(res.Value) != "8" || len(res.Calls) != 3 {
			t.Errorf("value %s, %d call records", res.Value, len(res.Calls))
		}
		res, e := runErr(t, sb, "let refused = 0;\nwhile (true) { try { await ns.f(); } catch { refused++; } }", echoHost("ns.f"))
		if e.Kind != KindCallLimit || !strings.Contains(e.Message, "kept calling after being refused (100 refused calls)") || len(res.Calls) != 3 {
			t.Errorf("error %v, %d call records", e, len(res.Calls))
		}
	})
}

// TestInProcessHardDeadline checks that in process, a builtin that ignores
// the interrupt does not hold the caller past timeout + 1 s: the execution
// is abandoned with TIMEOUT.
func TestInProcessHardDeadline(t *testing.T) {
	sb := inProcessSandbox(t, Limits{Timeout: 50 * time.Millisecond})
	// A sparse indexOf over 2e7 slots takes seconds and checks no interrupt.
	_, e := runErr(t, sb, "return Array(2e7).indexOf(1)", nil)
	if e.Kind != KindTimeout || !strings.Contains(e.Message, "cannot be interrupted") {
		t.Errorf("error = %v", e)
	}
}
