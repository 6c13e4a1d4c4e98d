package sandbox

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestEntropyReplay runs a script that reads the clock and Math.random,
// then runs it again with the first run's record: the second run returns
// exactly what the first did, in both modes, even after a host call.
func TestEntropyReplay(t *testing.T) {
	const src = `const a = Date.now(); const r = [Math.random(), Math.random()];
const d = new Date().toISOString();
await ns.echo({});
return {a, r, d, b: Date.now(), s: Math.random()};`
	forEachMode(t, Limits{Timeout: 5 * time.Second}, func(t *testing.T, sb *Sandbox) {
		ctx := context.Background()
		first, err := sb.RunWith(ctx, src, echoHost("ns.echo"), &RunOptions{Entropy: &Entropy{}})
		if err != nil {
			t.Fatal(err)
		}
		rec := first.Entropy
		if rec == nil || len(rec.Times) != 3 || len(rec.Random) != 3 || rec.Overflow {
			t.Fatalf("record %+v, want 3 clock readings and 3 random numbers", rec)
		}
		time.Sleep(5 * time.Millisecond) // the live clock moves on
		second, err := sb.RunWith(ctx, src, echoHost("ns.echo"), &RunOptions{Entropy: rec})
		if err != nil {
			t.Fatal(err)
		}
		if string(second.Value) != string(first.Value) {
			t.Fatalf("replayed run returned %s, first run %s", second.Value, first.Value)
		}
		third, err := sb.RunWith(ctx, src, echoHost("ns.echo"), &RunOptions{Entropy: &Entropy{}})
		if err != nil {
			t.Fatal(err)
		}
		if string(third.Value) == string(first.Value) {
			t.Fatalf("a run without the record returned the same values: %s", third.Value)
		}
	})
}

// TestEntropyPartialReplay replays a record shorter than what the script
// reads: the recorded values come first, then live ones, all recorded.
func TestEntropyPartialReplay(t *testing.T) {
	forEachMode(t, Limits{Timeout: 5 * time.Second}, func(t *testing.T, sb *Sandbox) {
		rec := &Entropy{Times: []int64{time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano()}, Random: []float64{0.25}}
		res, err := sb.RunWith(context.Background(), `return [new Date().toISOString(), Math.random(), Date.now() > 1700000000000, Math.random() !== 0.25];`, nil, &RunOptions{Entropy: rec})
		if err != nil {
			t.Fatal(err)
		}
		var got []any
		if err := json.Unmarshal(res.Value, &got); err != nil {
			t.Fatal(err)
		}
		if got[0] != "2020-01-02T03:04:05.000Z" || got[1] != 0.25 || got[2] != true || got[3] != true {
			t.Fatalf("got %v", got)
		}
		if len(res.Entropy.Times) != 2 || len(res.Entropy.Random) != 2 || res.Entropy.Times[0] != rec.Times[0] {
			t.Fatalf("record %+v", res.Entropy)
		}
	})
}

// TestEntropyBounded: a script reading the clock in a loop records at
// most MaxEntropyValues readings and says the record overflowed; without
// RunOptions.Entropy nothing is recorded.
func TestEntropyBounded(t *testing.T) {
	forEachMode(t, Limits{Timeout: 5 * time.Second}, func(t *testing.T, sb *Sandbox) {
		src := `let x = 0; for (let i = 0; i < 10000; i++) x += Date.now() % 2 + Math.random(); return 1;`
		res, err := sb.RunWith(context.Background(), src, nil, &RunOptions{Entropy: &Entropy{}})
		if err != nil {
			t.Fatal(err)
		}
		if e := res.Entropy; len(e.Times) != MaxEntropyValues || len(e.Random) != MaxEntropyValues || !e.Overflow {
			t.Fatalf("record of %d times, %d randoms, overflow %v", len(e.Times), len(e.Random), e.Overflow)
		}
		plain, err := sb.Run(context.Background(), src, nil)
		if err != nil {
			t.Fatal(err)
		}
		if plain.Entropy != nil {
			t.Fatal("a run without RunOptions.Entropy recorded")
		}
	})
}
