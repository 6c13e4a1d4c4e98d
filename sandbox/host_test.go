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
		{"return await brakinglab.deleteEverything()", "TypeError: brakinglab.deleteEverything is not a function. Available functions: createPlan, getLaps, getSessions."},
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
		if len(res.Calls) != 1 || res.Calls[0].Outcome != OutcomeError || res.Calls[0].Error != "Validation failed" {
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
			"await ns.echo({}, 2)":                         "ns.echo takes one argument, an object; got 2 arguments",
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
return { a, b, same: a === b, proto: Object.getPrototypeOf(b) === Object.prototype, arr: Array.isArray(b.laps) };`, host)
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

// TestPendingCallsCancelled checks that calls still in flight when the
// script finishes are cancelled and recorded as such.
func TestPendingCallsCancelled(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		started := make(chan struct{})
		var cancelled sync.WaitGroup
		cancelled.Add(1)
		host := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){
			"ns.block": func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
				close(started)
				<-ctx.Done()
				cancelled.Done()
				return nil, ctx.Err()
			},
			"ns.sync": func(context.Context, json.RawMessage) (json.RawMessage, error) {
				<-started // the blocking call is in the host before we return
				return json.RawMessage(`1`), nil
			},
		}}
		res := mustRun(t, sb, "ns.block(); return await ns.sync()", host)
		cancelled.Wait() // returns only if the host's context was cancelled
		if string(res.Value) != "1" || len(res.Calls) != 2 || res.Calls[0].Outcome != OutcomeCancelled || res.Calls[1].Outcome != OutcomeOK {
			t.Errorf("result = %s %+v", res.Value, res.Calls)
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
