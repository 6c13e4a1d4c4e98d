package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// raceHost answers ns.slow and ns.fast after the delays in slow and fast,
// and records the CallPosition each call carried.
type raceHost struct {
	slow, fast time.Duration
	mu         sync.Mutex
	indexes    map[string]int
	answered   map[string]int
}

func (h *raceHost) Functions() map[string][]string {
	return map[string][]string{"ns": {"fast", "slow"}, "free": {"look"}}
}

func (h *raceHost) FreeNamespaces() []string { return []string{"free"} }

func (h *raceHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	if name == "free.look" {
		return json.RawMessage(`"looked"`), nil
	}
	var a struct{ Tag string }
	_ = json.Unmarshal(args, &a)
	if pos, ok := PositionOf(ctx); ok {
		h.mu.Lock()
		h.indexes[a.Tag] = pos.Index
		if h.answered != nil {
			h.answered[a.Tag] = pos.Answered
		}
		h.mu.Unlock()
	}
	d := h.fast
	if name == "ns.slow" {
		d = h.slow
	}
	time.Sleep(d)
	return json.Marshal(name)
}

// TestOrderReplayRace runs a Promise.race whose winner decides what the
// script does next, then replays it with the hosts' timings reversed:
// given the first run's Entropy, the second run's race has the same
// winner, in both modes. Without the record the other call wins.
func TestOrderReplayRace(t *testing.T) {
	const src = `await free.look();
const w = await Promise.race([ns.slow({tag: "a"}), ns.fast({tag: "b"})]);
const again = await ns.fast({tag: "c"});
return {w, again};`
	forEachMode(t, Limits{Timeout: 10 * time.Second}, func(t *testing.T, sb *Sandbox) {
		ctx := context.Background()
		h1 := &raceHost{slow: 150 * time.Millisecond, fast: time.Millisecond, indexes: map[string]int{}, answered: map[string]int{}}
		first, err := sb.RunWith(ctx, src, h1, &RunOptions{Entropy: &Entropy{}})
		if err != nil {
			t.Fatal(err)
		}
		if string(first.Value) != `{"w":"ns.fast","again":"ns.fast"}` {
			t.Fatalf("first run returned %s", first.Value)
		}
		// CallPosition numbers host calls in the order made; the free call
		// has none.
		if want := map[string]int{"a": 0, "b": 1, "c": 2}; fmt.Sprint(h1.indexes) != fmt.Sprint(want) {
			t.Fatalf("call indexes %v, want %v", h1.indexes, want)
		}
		// a and b were made together; c after the race's answer.
		if want := map[string]int{"a": 0, "b": 0, "c": 1}; fmt.Sprint(h1.answered) != fmt.Sprint(want) {
			t.Fatalf("answers seen when each call was made %v, want %v", h1.answered, want)
		}
		if got := first.Entropy.Order; !slices.Equal(got, []int{1, 2, 0}) && !slices.Equal(got, []int{1, 0, 2}) {
			t.Fatalf("recorded order %v, want b first", got)
		}

		reversed := &raceHost{slow: time.Millisecond, fast: 150 * time.Millisecond, indexes: map[string]int{}}
		second, err := sb.RunWith(ctx, src, reversed, &RunOptions{Entropy: first.Entropy})
		if err != nil {
			t.Fatal(err)
		}
		if string(second.Value) != string(first.Value) {
			t.Fatalf("replayed run returned %s, recorded run %s", second.Value, first.Value)
		}
		live, err := sb.RunWith(ctx, src, reversed, &RunOptions{Entropy: &Entropy{}})
		if err != nil {
			t.Fatal(err)
		}
		if string(live.Value) != `{"w":"ns.slow","again":"ns.fast"}` {
			t.Fatalf("a run without the record returned %s; the test's timings do not decide the race", live.Value)
		}
	})
}

// TestOrderReplayLeavesRecord replays an order naming a call the run
// never makes: once every call in flight has answered, the held answers
// are delivered and the run ends normally instead of waiting for a call
// that will not come.
func TestOrderReplayLeavesRecord(t *testing.T) {
	forEachMode(t, Limits{Timeout: 10 * time.Second}, func(t *testing.T, sb *Sandbox) {
		h := &raceHost{slow: 5 * time.Millisecond, fast: time.Millisecond, indexes: map[string]int{}}
		start := time.Now()
		res, err := sb.RunWith(context.Background(), `const r = await Promise.all([ns.fast({tag: "a"}), ns.slow({tag: "b"})]); return r;`, h,
			&RunOptions{Entropy: &Entropy{Order: []int{7, 1, 0}}})
		if err != nil {
			t.Fatal(err)
		}
		if string(res.Value) != `["ns.fast","ns.slow"]` {
			t.Fatalf("returned %s", res.Value)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("took %v: the run waited for a call it never made", d)
		}
		if got := res.Entropy.Order; len(got) != 2 {
			t.Fatalf("recorded order %v, want the two calls made", got)
		}
	})
}

// TestOrderReplayHeldAtStop ends a run by its time limit while an answer
// is held for its turn behind a slow call: the held call is reported with
// its real outcome, not as unknown.
func TestOrderReplayHeldAtStop(t *testing.T) {
	forEachMode(t, Limits{Timeout: 300 * time.Millisecond}, func(t *testing.T, sb *Sandbox) {
		h := &raceHost{slow: 600 * time.Millisecond, fast: time.Millisecond, indexes: map[string]int{}}
		res, err := sb.RunWith(context.Background(), `return await Promise.all([ns.fast({tag: "a"}), ns.slow({tag: "b"})]);`, h,
			&RunOptions{Entropy: &Entropy{Order: []int{1, 0}}})
		var se *Error
		if !errors.As(err, &se) || se.Kind != KindTimeout {
			t.Fatalf("err = %v, want TIMEOUT", err)
		}
		if res == nil || len(res.Calls) != 2 || res.Calls[0].Outcome != OutcomeOK {
			t.Fatalf("calls %+v, want the held call ok", res)
		}
	})
}

// TestCallNameEncoding: a worker's call name carries its position; a
// name without one (a free call, a question) or a malformed one does not.
func TestCallNameEncoding(t *testing.T) {
	name, pos, ok := decodeCallName(encodeCallName("ns.fn", CallPosition{Index: 12, Answered: 3}))
	if !ok || name != "ns.fn" || pos != (CallPosition{Index: 12, Answered: 3}) {
		t.Fatalf("got %q %+v %v", name, pos, ok)
	}
	for _, a := range []string{"ns.fn", explainPrefix + "shape", "ns.fn\x00x\x001", "ns.fn\x001", "\x001\x002"} {
		if n, _, ok := decodeCallName([]byte(a)); ok || n != a {
			t.Fatalf("%q decoded as %q with a position", a, n)
		}
	}
}
