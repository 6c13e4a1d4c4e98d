package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHostCallsRunConcurrently holds every call in the host until all three
// have arrived: Promise.all only finishes if the calls are in flight at once.
func TestHostCallsRunConcurrently(t *testing.T) {
	forEachMode(t, Limits{Timeout: 5 * time.Second}, func(t *testing.T, sb *Sandbox) {
		var mu sync.Mutex
		arrived := 0
		all := make(chan struct{})
		host := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){
			"ns.wait": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				mu.Lock()
				arrived++
				if arrived == 3 {
					close(all)
				}
				mu.Unlock()
				select {
				case <-all:
					return args, nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			},
		}}
		res := mustRun(t, sb, "return await Promise.all([ns.wait({ i: 1 }), ns.wait({ i: 2 }), ns.wait({ i: 3 })]);", host)
		if !jsonEqual(t, res.Value, `[{"i":1},{"i":2},{"i":3}]`) {
			t.Errorf("value = %s", res.Value)
		}
		if len(res.Calls) != 3 {
			t.Fatalf("calls = %+v", res.Calls)
		}
		for _, c := range res.Calls {
			if c.Name != "ns.wait" || c.Outcome != OutcomeOK {
				t.Errorf("call = %+v", c)
			}
		}
	})
}

// TestMisspelledFunction checks the hint for a function that does not exist.
func TestMisspelledFunction(t *testing.T) {
	host := echoHost("brakinglab.getSessions", "brakinglab.getLaps", "brakinglab.createPlan")
	tests := []struct{ src, want string }{
		{"return await brakinglab.getSesions({})", "TypeError: brakinglab.getSesions is not a function. Did you mean getSessions?"},
		{"return await brakinglab.getlaps()", "TypeError: brakinglab.getlaps is not a function. Did you mean getLaps?"},
		{"return await brakinglab.deleteEverything()", "TypeError: brakinglab.deleteEverything is not a function. Its 3 functions: createPlan, getLaps, getSessions."},
	}
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		for _, tc := range tests {
			_, e := runErr(t, sb, tc.src, host)
			if e.Kind != KindRuntime || e.Message != tc.want {
				t.Errorf("%s: got %s %q, want %q", tc.src, e.Kind, e.Message, tc.want)
			}
			if e.Line != 1 {
				t.Errorf("%s: line = %d", tc.src, e.Line)
			}
		}
		_, e := runErr(t, sb, "return await brakinlab.getLaps()", host)
		if e.Message != "ReferenceError: brakinlab is not defined. Did you mean brakinglab?" {
			t.Errorf("namespace typo: %q", e.Message)
		}
		_, e = runErr(t, sb, "return await api.getLaps()", host)
		if e.Message != "ReferenceError: api is not defined. Host functions are in: brakinglab." {
			t.Errorf("unknown namespace: %q", e.Message)
		}
		// Probing the namespace the ordinary ways works.
		res := mustRun(t, sb, "return [typeof brakinglab.getLaps, 'getLaps' in brakinglab, Object.keys(brakinglab), JSON.stringify(brakinglab) !== undefined, await (brakinglab as any)]", host)
		if !jsonEqual(t, res.Value, `["function", true, ["createPlan","getLaps","getSessions"], true, {}]`) {
			t.Errorf("probe = %s", res.Value)
		}
	})
}

// validationErr mimics the catalog's validation error: a model-safe message
// and a JSON form with issues.
type validationErr struct{ issues []map[string]any }

func (validationErr) Error() string { return "Validation failed" }
func (v validationErr) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"error": "Validation failed", "issues": v.issues, "message": "ignored", "stack": "ignored"})
}

// TestHostErrors checks that host errors reject with a catchable Error that
// carries the properties of the error's JSON form, and that a host panic
// becomes an error instead of crashing.
func TestHostErrors(t *testing.T) {
	host := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){
		"ns.validate": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return nil, validationErr{issues: []map[string]any{{"path": []any{"lap", 0}, "message": "must be positive"}}}
		},
		"ns.plain": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("session 42 not found")
		},
		"ns.panics": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			var s []int
			return json.RawMessage(fmt.Sprint(s[len(s)-1])), nil // index out of range
		},
		"ns.badJSON": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{not json`), nil
		},
	}}
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		res := mustRun(t, sb, `
try { await ns.validate({ lap: -1 }); } catch (e: any) {
  return { isError: e instanceof Error, message: e.message, issues: e.issues, error: e.error };
}`, host)
		if !jsonEqual(t, res.Value, `{"isError":true,"message":"Validation failed","issues":[{"path":["lap",0],"message":"must be positive"}],"error":"Validation failed"}`) {
			t.Errorf("validation error = %s", res.Value)
		}
		if len(res.Calls) != 1 || res.Calls[0].Outcome != OutcomeError || res.Calls[0].Error != `Validation failed {"issues":[{"message":"must be positive","path":["lap",0]}]}` || res.Calls[0].Line != 2 {
			t.Errorf("calls = %+v", res.Calls)
		}

		// Uncaught, the properties come back with the error.
		_, e := runErr(t, sb, "await ns.validate({ lap: -1 })", host)
		if !jsonEqual(t, e.Data, `{"error":"Validation failed","issues":[{"path":["lap",0],"message":"must be positive"}]}`) || e.Message != "Error: Validation failed" {
			t.Errorf("uncaught validation error = %+v, data %s", e, e.Data)
		}

		res = mustRun(t, sb, `try { await ns.plain(); } catch (e: any) { return e.message }`, host)
		if string(res.Value) != `"session 42 not found"` {
			t.Errorf("plain error = %s", res.Value)
		}

		res = mustRun(t, sb, `try { await ns.panics(); return "no error"; } catch (e: any) { return e.message }`, host)
		if !strings.Contains(string(res.Value), "internal error in ns.panics") {
			t.Errorf("panic = %s", res.Value)
		}

		_, e = runErr(t, sb, `await ns.badJSON()`, host)
		if e.Kind != KindRuntime || !strings.Contains(e.Message, "not valid JSON") {
			t.Errorf("bad JSON = %v", e)
		}

		// The sandbox still works after a host panic.
		if res := mustRun(t, sb, "return 1", host); string(res.Value) != "1" {
			t.Errorf("after panic: %s", res.Value)
		}
	})
}

// TestHostArguments checks what a host receives: one JSON object, {} when
// omitted, and clear errors for what cannot be sent.
func TestHostArguments(t *testing.T) {
	host := echoHost("ns.echo")
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		res := mustRun(t, sb, "return [await ns.echo(), await ns.echo({ a: [1, 'x', null], d: new Date(0), u: undefined })]", host)
		if !jsonEqual(t, res.Value, `[{"fn":"ns.echo","args":{}},{"fn":"ns.echo","args":{"a":[1,"x",null],"d":"1970-01-01T00:00:00.000Z"}}]`) {
			t.Errorf("value = %s", res.Value)
		}
		for src, want := range map[string]string{
			"await ns.echo({}, 2)":                         "ns.echo takes one argument, an object with named members; got 2 arguments. Pass one object: ns.echo({ name: value, … }).",
			"await ns.echo(() => 1)":                       "ns.echo takes an object argument; a function cannot be sent",
			"await ns.echo({ n: 1n })":                     "BigInt",
			"const o: any = {}; o.o = o; await ns.echo(o)": "circular",
		} {
			_, e := runErr(t, sb, src, host)
			if e.Kind != KindRuntime || !strings.Contains(e.Message, want) {
				t.Errorf("%s: %v, want message containing %q", src, e, want)
			}
		}
	})
}

// TestHostArgumentsCap checks that a call whose JSON arguments exceed 1 MiB
// is rejected before it reaches the host, the same way in both modes, and
// that one just under the cap goes through.
func TestHostArgumentsCap(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	host := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){
		"ns.put": func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			mu.Lock()
			sizes = append(sizes, len(args))
			mu.Unlock()
			return json.RawMessage(`"stored"`), nil
		},
	}}
	// {"s":"…"} is 8 bytes of JSON around the string.
	src := `const big = "x".repeat(1024 * 1024 - 8 + 1);
let caught = "";
try { await ns.put({ s: big }); } catch (e: any) { caught = e.message; }
return [caught, await ns.put({ s: big.slice(1) })];`
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		sizes = nil
		res := mustRun(t, sb, src, host)
		var got []string
		if err := json.Unmarshal(res.Value, &got); err != nil || len(got) != 2 {
			t.Fatalf("value = %s (%v)", res.Value, err)
		}
		want := "the arguments to ns.put are 1048577 bytes of JSON, over the 1024 KiB limit for one host call: pass identifiers and filters, not bulk data"
		if got[0] != want || got[1] != "stored" {
			t.Errorf("value = %q, want [%q, \"stored\"]", got, want)
		}
		if len(sizes) != 1 || sizes[0] != 1<<20 {
			t.Errorf("the host saw arguments of %v bytes, want only the call of exactly 1 MiB", sizes)
		}
		if len(res.Calls) != 2 || res.Calls[0].Outcome != OutcomeRejected || res.Calls[0].Error != want || res.Calls[1].Outcome != OutcomeOK {
			t.Errorf("calls = %+v", res.Calls)
		}
		// A rejected call does not count against the call limit.
		_, e := runErr(t, sb, strings.Replace(src, "return [", "throw [", 1), host)
		if e.CallsUsed != 1 {
			t.Errorf("CallsUsed = %d, want 1", e.CallsUsed)
		}
	})
}

// TestJSONCopies checks that values cross the boundary as copies: a script
// mutating a result does not change the host's data or later results.
func TestJSONCopies(t *testing.T) {
	data := json.RawMessage(`{"laps":[1,2,3]}`)
	host := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){
		"ns.get": func(context.Context, json.RawMessage) (json.RawMessage, error) { return data, nil },
	}}
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		res := mustRun(t, sb, `
const a = await ns.get();
a.laps.push(4); a.extra = true;
const b = await ns.get();
return { a, b, same: a === b, proto: b instanceof Object && Object.prototype.isPrototypeOf(b) && b.constructor === Object && b.laps instanceof Array, arr: Array.isArray(b.laps) };`, host)
		if !jsonEqual(t, res.Value, `{"a":{"laps":[1,2,3,4],"extra":true},"b":{"laps":[1,2,3]},"same":false,"proto":true,"arr":true}`) {
			t.Errorf("value = %s", res.Value)
		}
		if string(data) != `{"laps":[1,2,3]}` {
			t.Errorf("host data changed: %s", data)
		}
	})
}

// TestReturnValues checks the conversion of return values to JSON.
func TestReturnValues(t *testing.T) {
	tests := []struct{ src, want, errPart string }{
		{src: "return undefined", want: "null"},
		{src: "return", want: "null"},
		{src: "return { a: undefined, b: [undefined], c: () => 1 }", want: `{"b":[null]}`},
		{src: "return 'text'", want: `"text"`},
		{src: "return new Map([[1, 2]])", want: `{}`},
		{src: "return { toJSON() { return 5 } }", want: `5`},
		{src: "return { err: new TypeError('bad') }", want: `{"err":"TypeError: bad"}`},
		{src: "return () => 1", errPart: "the script returned a function"},
		{src: "return 10n", errPart: "cannot be converted to JSON (TypeError"},
		{src: "const o: any = {}; o.o = o; return o", errPart: "remove circular references"},
		{src: "return Symbol('x')", want: "null"},
	}
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		for _, tc := range tests {
			res, err := sb.Run(context.Background(), tc.src, nil)
			if tc.errPart != "" {
				var e *Error
				if !errors.As(err, &e) || e.Kind != KindRuntime || !strings.Contains(e.Message, tc.errPart) {
					t.Errorf("%s: err = %v, want RUNTIME containing %q", tc.src, err, tc.errPart)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", tc.src, err)
				continue
			}
			if !jsonEqual(t, res.Value, tc.want) {
				t.Errorf("%s: value = %s, want %s", tc.src, res.Value, tc.want)
			}
		}
	})
}

// TestUnawaitedCallsFinish checks that host calls still in flight when the
// script returns run to their end, that each outcome is what the host
// returned, and that each is named in a warning with its position and the
// fix.
func TestUnawaitedCallsFinish(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		var mu sync.Mutex
		var stored []string
		host := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){
			"ns.write": func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
				if strings.Contains(string(args), "bad") {
					return nil, errors.New("bad note")
				}
				mu.Lock()
				stored = append(stored, string(args))
				mu.Unlock()
				return json.RawMessage(`{"id":1}`), nil
			},
		}}
		src := "const notes = ['a', 'bad', 'c'];\nnotes.forEach(async (n) => {\n  await ns.write({ n });\n});\nreturn 'done';"
		res := mustRun(t, sb, src, host)
		if string(res.Value) != `"done"` {
			t.Errorf("value = %s", res.Value)
		}
		want := []string{OutcomeOK, OutcomeError, OutcomeOK}
		if len(res.Calls) != 3 || len(stored) != 2 {
			t.Fatalf("calls = %+v, stored = %v", res.Calls, stored)
		}
		for i, c := range res.Calls {
			if c.Outcome != want[i] {
				t.Errorf("call %d outcome = %s, want %s", i, c.Outcome, want[i])
			}
		}
		if len(res.Warnings) != 3 {
			t.Fatalf("warnings = %+v", res.Warnings)
		}
		for i, w := range res.Warnings {
			if w.Kind != WarningUnawaited || w.Function != "ns.write" || w.Line != 3 || w.Column != 12 || w.Outcome != want[i] ||
				!strings.Contains(w.Message, "ns.write was not awaited") || !strings.Contains(w.Message, "await Promise.all(...)") {
				t.Errorf("warning %d = %+v", i, w)
			}
		}
		if !strings.Contains(res.Warnings[1].Message, "bad note") {
			t.Errorf("the failed call's warning does not carry its error: %s", res.Warnings[1].Message)
		}
	})
}

// TestUnawaitedContinuations checks that the continuations of an unawaited
// call run after the script returns, as in Node, and that calls they start
// are waited for and reported too.
func TestUnawaitedContinuations(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		host := echoHost("ns.read", "ns.write")
		res := mustRun(t, sb, "ns.read({}).then(() => ns.write({}));\nreturn 1", host)
		if len(res.Calls) != 2 || res.Calls[1].Name != "ns.write" || res.Calls[1].Outcome != OutcomeOK {
			t.Fatalf("calls = %+v", res.Calls)
		}
		if len(res.Warnings) != 2 || res.Warnings[1].Function != "ns.write" {
			t.Errorf("warnings = %+v", res.Warnings)
		}
	})
}

// TestTimeoutWithCallsInFlight checks the outcomes of calls in flight when
// the time limit ends an execution: a host that stops on cancellation is
// reported cancelled, one that finishes anyway after the deadline is
// reported as it finished, and one that never returns is unknown, never
// cancelled.
func TestTimeoutWithCallsInFlight(t *testing.T) {
	forEachMode(t, Limits{Timeout: 300 * time.Millisecond}, func(t *testing.T, sb *Sandbox) {
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })
		host := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){
			"ns.stops": func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			},
			"ns.finishes": func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
				<-ctx.Done() // past the deadline; then completes its write anyway
				return json.RawMessage(`true`), nil
			},
			"ns.hangs": func(context.Context, json.RawMessage) (json.RawMessage, error) {
				<-release
				return nil, nil
			},
		}}
		res, se := runErr(t, sb, "await Promise.all([ns.stops(), ns.finishes(), ns.hangs()])", host)
		if se.Kind != KindTimeout {
			t.Fatalf("error = %v, want TIMEOUT", se)
		}
		want := []string{OutcomeCancelled, OutcomeOK, OutcomeUnknown}
		for i, c := range res.Calls {
			if c.Outcome != want[i] {
				t.Errorf("%s outcome = %s, want %s", c.Name, c.Outcome, want[i])
			}
		}
		if len(res.Warnings) != 0 {
			t.Errorf("awaited calls got warnings: %+v", res.Warnings)
		}
	})
}

// TestUnawaitedPastTimeout checks that a script that returned keeps its
// value when a call it did not await runs into the time limit, and the
// warning says the call was cancelled.
func TestUnawaitedPastTimeout(t *testing.T) {
	forEachMode(t, Limits{Timeout: 300 * time.Millisecond}, func(t *testing.T, sb *Sandbox) {
		host := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){
			"ns.slow": func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			},
		}}
		res := mustRun(t, sb, "ns.slow();\nreturn 7", host)
		if string(res.Value) != "7" || len(res.Calls) != 1 || res.Calls[0].Outcome != OutcomeCancelled {
			t.Fatalf("result = %s %+v", res.Value, res.Calls)
		}
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, "cancelled") || res.Warnings[0].Line != 1 {
			t.Errorf("warnings = %+v", res.Warnings)
		}
	})
}

// TestHostWarnings checks the Warn seam: warnings a host attaches to a
// call reach the result with the function and the call's position, in
// both modes, and a context that is not a call's drops them.
func TestHostWarnings(t *testing.T) {
	Warn(context.Background(), "nobody listens") // must not panic
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		host := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){
			"ns.get": func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
				Warn(ctx, `get ignored unknown field "track" (did you mean "trackName"?)`)
				for range 20 {
					Warn(ctx, "more")
				}
				return json.RawMessage(`[]`), nil
			},
		}}
		res := mustRun(t, sb, "const a = 1;\nreturn await ns.get({ track: 'Monza' })", host)
		if len(res.Warnings) != maxCallWarnings {
			t.Fatalf("warnings = %d, want %d", len(res.Warnings), maxCallWarnings)
		}
		w := res.Warnings[0]
		if w.Kind != WarningHost || w.Function != "ns.get" || w.Line != 2 || w.Column != 17 || !strings.Contains(w.Message, `"trackName"`) {
			t.Errorf("warning = %+v", w)
		}
	})
}

// TestBadNamespaces checks that a host binding names that cannot work is
// refused with a clear error instead of shadowing globals.
func TestBadNamespaces(t *testing.T) {
	sb := inProcessSandbox(t, Limits{})
	dup := &funcHost{funcs: echoHost("ns.f").funcs}
	if res, err := sb.Run(context.Background(), "return await ns.f()", hostWithNames{dup, map[string][]string{"ns": {"f", "f"}}}); err != nil || res == nil {
		t.Errorf("duplicate names: %v", err)
	}
	for ns, want := range map[string]string{
		"JSON":    "would replace a JavaScript global",
		"console": "would replace a JavaScript global",
		"my-ns":   "not a JavaScript identifier",
		"class":   "not a JavaScript identifier",
		"garagé":  "not a JavaScript identifier", // the rule catalog.New applies (internal/jsident)
		"":        "not a JavaScript identifier",
	} {
		_, err := sb.Run(context.Background(), "return 1", echoHost(ns+".f"))
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindInternal || !strings.Contains(e.Message, want) {
			t.Errorf("namespace %q: %v, want INTERNAL %q", ns, err, want)
		}
	}
}

// TestUnhandledRejections checks that a failed call nobody awaited is
// reported in the logs rather than lost.
func TestUnhandledRejections(t *testing.T) {
	host := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){
		"ns.fail": func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return nil, errors.New("lap not found")
		},
		"ns.ok": func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage("1"), nil },
	}}
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		// Host results arrive in any order, so the script waits for the
		// failed call; the promise chained on it first rejects with nobody
		// handling it.
		res := mustRun(t, sb, "const failed = ns.fail({});\nconst forgotten = failed.then(() => 0);\nawait failed.then(() => 0, () => 0); await ns.ok();\nPromise.reject(new Error('late')).catch(() => {});\nreturn 1", host)
		if len(res.Logs) != 1 || res.Logs[0].Level != "warn" || !strings.HasPrefix(res.Logs[0].Message, "Unhandled promise rejection: Error: lap not found. ") {
			t.Errorf("logs = %+v", res.Logs)
		}
	})
}

// hostWithNames overrides what a Host lists.
type hostWithNames struct {
	Host
	names map[string][]string
}

func (h hostWithNames) Functions() map[string][]string { return h.names }

// TestUndefinedArguments checks that an argument member whose value is
// undefined (and so never reaches the host) is reported with the call's
// position, and that a call without such members gets no warning.
func TestUndefinedArguments(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		host := echoHost("ns.addNote")
		src := "const c: any = { index: 3 };\nconst r = await ns.addNote({ note: 'x', cornerIndex: c.cornerIndex });\nawait ns.addNote({ note: 'y' });\nreturn r.args;"
		res := mustRun(t, sb, src, host)
		if !jsonEqual(t, res.Value, `{"note":"x"}`) {
			t.Errorf("value = %s", res.Value)
		}
		if len(res.Warnings) != 1 {
			t.Fatalf("warnings = %+v", res.Warnings)
		}
		w := res.Warnings[0]
		if w.Kind != WarningUndefinedArgument || w.Function != "ns.addNote" || w.Line != 2 || w.Column != 20 ||
			!strings.HasPrefix(w.Message, `ns.addNote was called without "cornerIndex": the value was undefined`) {
			t.Errorf("warning = %+v", w)
		}
	})
}

// A host error marked with ErrOutcomeUnknown records the call as
// unknown, whether it came back in time or after the time limit
// cancelled it, never as cancelled without effect; the script still
// catches the host's own error, properties included.
func TestOutcomeUnknownFromHost(t *testing.T) {
	forEachMode(t, Limits{Timeout: 300 * time.Millisecond}, func(t *testing.T, sb *Sandbox) {
		lost := func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			return nil, MarkOutcomeUnknown(&codedErr{msg: "the answer was lost; it may have taken effect", code: "outcome_unknown"})
		}
		host := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){
			"ns.lost": lost,
			"ns.late": func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				<-ctx.Done()
				return lost(ctx, args)
			},
		}}
		res := mustRun(t, sb, `try { await ns.lost({}); } catch (e) { return e.code + ": " + e.message; }`, host)
		if string(res.Value) != `"outcome_unknown: the answer was lost; it may have taken effect"` {
			t.Fatalf("value = %s", res.Value)
		}
		if len(res.Calls) != 1 || res.Calls[0].Outcome != OutcomeUnknown || !strings.Contains(res.Calls[0].Error, "may have taken effect") {
			t.Fatalf("calls = %+v", res.Calls)
		}
		res = mustRun(t, sb, "ns.late({});\nreturn 7", host)
		if len(res.Calls) != 1 || res.Calls[0].Outcome != OutcomeUnknown {
			t.Fatalf("late calls = %+v", res.Calls)
		}
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, "whether it took effect is unknown: the answer was lost") || strings.Contains(res.Warnings[0].Message, "without effect") {
			t.Errorf("warnings = %+v", res.Warnings)
		}
	})
}

// codedErr is a host error with a code property, as catalog.Error has.
type codedErr struct{ msg, code string }

func (e *codedErr) Error() string { return e.msg }
func (e *codedErr) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"error": e.msg, "code": e.code})
}
