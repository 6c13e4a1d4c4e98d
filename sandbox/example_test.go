package sandbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/brakinglab/codemode-go/sandbox"
)

// lapHost exposes two functions under the "brakinglab" namespace.
type lapHost struct{}

func (lapHost) Functions() map[string][]string {
	return map[string][]string{"brakinglab": {"getLaps", "getSessions"}}
}

func (lapHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	switch name {
	case "brakinglab.getSessions":
		return json.RawMessage(`[{"id":"s1","track":"Spa"},{"id":"s2","track":"Monza"}]`), nil
	case "brakinglab.getLaps":
		var in struct{ SessionID string }
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		return json.RawMessage(`[{"ms":138200},{"ms":137900},{"ms":139100}]`), nil
	}
	return nil, fmt.Errorf("unknown function %s", name)
}

// A script calls host functions concurrently, filters what comes back, logs
// and returns a value.
func Example() {
	sb, err := sandbox.New(nil) // worker processes, default limits
	if err != nil {
		panic(err)
	}
	defer sb.Close()

	res, err := sb.Run(context.Background(), `
const sessions = await brakinglab.getSessions({});
const laps = await Promise.all(sessions.map((s: any) => brakinglab.getLaps({ sessionId: s.id })));
const best = laps.map((l: any[]) => Math.min(...l.map((x) => x.ms)));
console.log("sessions:", sessions.length);
return { best };
`, lapHost{})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(res.Value))
	for _, l := range res.Logs {
		fmt.Println(l.Level, l.Message)
	}
	fmt.Println(len(res.Calls), "calls")
	// Output:
	// {"best":[137900,137900]}
	// log sessions: 2
	// 3 calls
}

// Errors carry a Kind to switch on, a message for the model and the
// position in the model's TypeScript.
func ExampleError() {
	sb, _ := sandbox.New(&sandbox.Options{Mode: sandbox.ModeInProcess})
	defer sb.Close()

	_, err := sb.Run(context.Background(), "const s = await brakinglab.getSesions();", lapHost{})
	var e *sandbox.Error
	if errors.As(err, &e) {
		fmt.Println(e.Kind)
		fmt.Println(e.Message)
		fmt.Printf("line %d, column %d\n", e.Line, e.Column)
	}
	// Output:
	// RUNTIME
	// TypeError: brakinglab.getSesions is not a function. Did you mean getSessions?
	// line 1, column 17
}

// RunWith lowers limits for one execution; it can never raise them above
// the sandbox's.
func ExampleSandbox_RunWith() {
	sb, _ := sandbox.New(&sandbox.Options{Mode: sandbox.ModeInProcess, Limits: sandbox.Limits{Timeout: 5 * time.Second}})
	defer sb.Close()

	_, err := sb.RunWith(context.Background(), "while (true) {}", nil,
		&sandbox.RunOptions{Limits: sandbox.Limits{Timeout: 50 * time.Millisecond}})
	fmt.Println(errors.Is(err, &sandbox.Error{Kind: sandbox.KindTimeout}))
	// Output:
	// true
}

// Output over MaxOutputBytes is cut with a marker the model can act on.
func ExampleResult_truncated() {
	sb, _ := sandbox.New(&sandbox.Options{Mode: sandbox.ModeInProcess, Limits: sandbox.Limits{MaxOutputBytes: 64}})
	defer sb.Close()

	res, _ := sb.Run(context.Background(), `for (let i = 0; i < 100; i++) console.log("lap", i); return "done";`, nil)
	last := res.Logs[len(res.Logs)-1]
	fmt.Println(res.Truncated, string(res.Value))
	fmt.Println(strings.HasPrefix(last.Message, "[output truncated"))
	// Output:
	// true "done"
	// true
}

// warnHost is a Host whose getSessions ignores a member it does not know,
// and says so with Warn.
type warnHost struct{ lapHost }

func (h warnHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	if strings.Contains(string(args), `"track"`) {
		sandbox.Warn(ctx, `getSessions ignored unknown field "track" (did you mean "trackName"?)`)
	}
	return h.lapHost.Call(ctx, name, args)
}

// A host attaches warnings to a call with Warn, and the sandbox reports
// every call the script did not await; both come back in Result.Warnings
// with the call's position. The unawaited call still ran to its end.
func ExampleWarn() {
	sb, err := sandbox.New(&sandbox.Options{Mode: sandbox.ModeInProcess})
	if err != nil {
		panic(err)
	}
	defer sb.Close()

	res, err := sb.Run(context.Background(), `const all = await brakinglab.getSessions({ track: "Monza" });
brakinglab.getLaps({ sessionId: all[0].id });
return all.length;`, warnHost{})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(res.Value))
	for _, w := range res.Warnings {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s %s %d:%d %s", w.Kind, w.Function, w.Line, w.Column, w.Outcome)))
	}
	// Output:
	// 2
	// HOST brakinglab.getSessions 1:30
	// UNAWAITED_CALL brakinglab.getLaps 2:12 ok
}

// orderHost sends orders to a shop whose answers get lost.
type orderHost struct{}

func (orderHost) Functions() map[string][]string {
	return map[string][]string{"shop": {"placeOrder"}}
}

func (orderHost) Call(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	// The order went out; the answer did not come back.
	return nil, sandbox.MarkOutcomeUnknown(errors.New("the shop did not answer; the order may have been placed"))
}

// A host that sent work on and lost the answer marks its error, so the
// call is reported as unknown, not as failed without effect.
func ExampleMarkOutcomeUnknown() {
	sb, err := sandbox.New(&sandbox.Options{Mode: sandbox.ModeInProcess})
	if err != nil {
		panic(err)
	}
	defer sb.Close()
	res, err := sb.Run(context.Background(), `
try { await shop.placeOrder({ item: "tyres" }); } catch (e) { return e.message; }`, orderHost{})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(res.Value))
	fmt.Println(res.Calls[0].Name, res.Calls[0].Outcome)
	// Output:
	// "the shop did not answer; the order may have been placed"
	// shop.placeOrder unknown
}
