package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// loggingHost is savedResultHost that logs every call, free call and
// sub-program question that reaches it, with its arguments.
type loggingHost struct {
	*savedResultHost
	mu  sync.Mutex
	log []string
}

func newLoggingHost() *loggingHost {
	return &loggingHost{savedResultHost: newSavedResultHost().(*savedResultHost)}
}

func (h *loggingHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	h.mu.Lock()
	h.log = append(h.log, name+" "+string(args))
	h.mu.Unlock()
	return h.savedResultHost.Call(ctx, name, args)
}

func (h *loggingHost) Subprogram(ctx context.Context, name string, args json.RawMessage) (*Subprogram, error) {
	h.mu.Lock()
	h.log = append(h.log, "sub "+name+" "+string(args))
	h.mu.Unlock()
	return h.savedResultHost.Subprogram(ctx, name, args)
}

func (h *loggingHost) calls() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.log)
}

// TestSecondRunNeverReachesTheHost checks, in both modes, that a failure
// explained by a second run (see diagnose.go) reached the host once per
// call: a write, a free call and a saved function's question and calls
// each appear once in the host's log, and the error names the origin.
func TestSecondRunNeverReachesTheHost(t *testing.T) {
	forEachMode(t, Limits{MaxCalls: 20}, func(t *testing.T, sb *Sandbox) {
		h := newLoggingHost()
		src := `await lab.addNote({ note: "written once" });
const d = await codemode.describe(["lab.getSessions"]);
const note = await saved.readNote({ path: "/notes/a.txt" });
const text = await files.read_text_file({ path: "/notes/b.txt" });
console.log(typeof d, typeof note);
return text.split("\n");`
		res, err := sb.Run(context.Background(), src, h)
		var se *Error
		if !errors.As(err, &se) || !strings.Contains(se.Message, "text is the result of files.read_text_file (line 4)") {
			t.Fatalf("got %v, want the origin of text", err)
		}
		want := []string{
			`lab.addNote {"note":"written once"}`,
			`codemode.describe [["lab.getSessions"]]`,
			`sub saved.readNote {"path":"/notes/a.txt"}`,
			`files.read_text_file {"path":"/notes/a.txt"}`,
			`files.read_text_file {"path":"/notes/b.txt"}`,
		}
		if got := h.calls(); !slices.Equal(got, want) {
			t.Errorf("the host saw\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if len(res.Logs) != 1 || len(res.Calls) != 3 {
			t.Errorf("logs %q, calls %+v: want the first run's one log line and three calls", res.Logs, res.Calls)
		}
	})
}

// TestSecondRunThatDepartsChangesNothing checks that a second run whose
// calls differ from the first's (arguments made of Math.random, which a
// run does not record unless asked) is discarded: the plain message
// stands, and the host saw each call once.
func TestSecondRunThatDepartsChangesNothing(t *testing.T) {
	forEachMode(t, Limits{MaxCalls: 20}, func(t *testing.T, sb *Sandbox) {
		h := newLoggingHost()
		src := "const text = await files.read_text_file({ path: \"/n\" + Math.random() });\nreturn text.split(\"\\n\");"
		_, err := sb.Run(context.Background(), src, h)
		var se *Error
		if !errors.As(err, &se) || se.Message != "TypeError: Object has no member 'split'" {
			t.Fatalf("got %v, want the plain message", err)
		}
		if n := len(h.calls()); n != 1 {
			t.Errorf("the host saw %d calls, want 1: %q", n, h.calls())
		}
	})
}

// TestSecondRunWithinTheTimeLimit checks that a script that computed for
// more than half its time limit before failing gets no second run: the
// execution ends within its limit with the plain message. Time spent
// waiting for the host does not count, since a second run's calls are
// answered at once: a script whose slow call took 1.2 s of 2 s is
// explained, within the limit.
func TestSecondRunWithinTheTimeLimit(t *testing.T) {
	forEachMode(t, Limits{Timeout: 2 * time.Second}, func(t *testing.T, sb *Sandbox) {
		h := newLoggingHost()
		h.funcs["lab.slow"] = func(context.Context, json.RawMessage) (json.RawMessage, error) {
			time.Sleep(1200 * time.Millisecond)
			return json.RawMessage(`{"content":"brake later"}`), nil
		}
		for _, c := range []struct {
			src, want string
			explained bool
		}{
			{"const text = await files.read_text_file({ path: \"/n\" });\nconst end = Date.now() + 1200;\nwhile (Date.now() < end) {}\nreturn text.split(\"\\n\");",
				"TypeError: Object has no member 'split'", false},
			{"const text = await lab.slow({});\nreturn text.split(\"\\n\");",
				"TypeError: Object has no member 'split'. text is the result of lab.slow (line 1)", true},
		} {
			start := time.Now()
			_, err := sb.Run(context.Background(), c.src, h)
			took := time.Since(start)
			var se *Error
			if !errors.As(err, &se) || !strings.HasPrefix(se.Message, c.want) || c.explained != strings.Contains(se.Message, "is the result of") {
				t.Errorf("%s:\ngot %v, want a message starting %q", c.src, err, c.want)
			}
			if took > 2*time.Second {
				t.Errorf("took %s, over the 2 s limit", took)
			}
		}
	})
}

// TestSecondRunDifferential generates scripts from a seed that make host
// calls (sequential, concurrent, free, saved functions, writes), read
// results right or wrong, and end in a value, a misread, a warning or a
// thrown error. Each runs in both modes and, as the reference, in process
// with no second run (originsOff). Whatever a second run explains:
//   - the host sees exactly the reference's calls, each once;
//   - the value, logs and calls are the reference's;
//   - an error is the reference's kind at its position, its message the
//     reference's with at most an explanation after it;
//   - the warnings are the reference's, in order, with at most added
//     warnings about values.
//
// Set SECONDRUN_SEED to replay a seed.
func TestSecondRunDifferential(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SECONDRUN_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (SECONDRUN_SEED=%d to replay)", seed, seed)
	r := rand.New(rand.NewPCG(seed, 41))
	n := 120
	if testing.Short() {
		n = 40
	}
	lim := Limits{MaxCalls: 30}
	ref, err := New(&Options{Mode: ModeInProcess, Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ref.Close() })
	sbs := map[string]*Sandbox{}
	for _, m := range testModes {
		sb, err := New(&Options{Mode: m, Limits: lim, PoolSize: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = sb.Close() })
		sbs[m.String()] = sb
	}
	explained := 0
	for i := 0; i < n; i++ {
		src, random := genDiagnosed(r)
		originsOff = true
		hRef := newLoggingHost()
		resRef, errRef := ref.Run(context.Background(), src, hRef)
		originsOff = false
		for mode, sb := range sbs {
			h := newLoggingHost()
			res, err := sb.Run(context.Background(), src, h)
			fail := func(format string, args ...any) {
				t.Helper()
				t.Errorf("seed %d script %d, %s: %s\n%s", seed, i, mode, fmt.Sprintf(format, args...), src)
			}
			got, want := h.calls(), hRef.calls()
			if random {
				got, want = callNames(got), callNames(want)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				fail("the host saw\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				continue
			}
			var se, seRef *Error
			errors.As(err, &se)
			errors.As(errRef, &seRef)
			switch {
			case se == nil && seRef == nil:
			case se == nil || seRef == nil || se.Kind != seRef.Kind || se.Line != seRef.Line || se.Column != seRef.Column:
				fail("error %v, want %v", err, errRef)
				continue
			case !strings.HasPrefix(se.Message, seRef.Message):
				fail("message %q does not start with %q", se.Message, seRef.Message)
			case se.Message != seRef.Message:
				if random {
					fail("a second run that departed explained %q", se.Message)
				}
				explained++
			}
			if (res == nil) != (resRef == nil) {
				fail("result %v, want %v", res, resRef)
				continue
			}
			if res == nil {
				continue
			}
			if !random && (err == nil && string(res.Value) != string(resRef.Value) || !slices.Equal(res.Logs, resRef.Logs)) {
				fail("value %s logs %q, want %s %q", res.Value, res.Logs, resRef.Value, resRef.Logs)
			}
			if names, refNames := outcomes(res.Calls), outcomes(resRef.Calls); !slices.Equal(names, refNames) {
				fail("calls %q, want %q", names, refNames)
			}
			j := 0
			for _, w := range res.Warnings {
				if j < len(resRef.Warnings) {
					wr := resRef.Warnings[j]
					if w.Kind == wr.Kind && w.Function == wr.Function && w.Line == wr.Line && w.Column == wr.Column {
						if w.Message != wr.Message {
							if random {
								fail("a second run that departed reworded a warning: %q", w.Message)
							}
							explained++
						}
						j++
						continue
					}
				}
				if w.Kind != WarningValue || random {
					fail("warning %+v is not the reference's", w)
				}
				explained++
			}
			if j != len(resRef.Warnings) {
				fail("warnings %+v, want %+v", res.Warnings, resRef.Warnings)
			}
		}
	}
	// The generator must exercise second runs, not only agree.
	if explained < n/4 {
		t.Errorf("only %d of %d runs were explained by a second run", explained, 2*n)
	}
	t.Logf("%d scripts, %d explanations by a second run", n, explained)
}

func callNames(log []string) []string {
	out := make([]string, len(log))
	for i, l := range log {
		out[i] = l[:strings.IndexAny(l+" {", "{[")-1] // the name, without its JSON arguments
	}
	return out
}

func outcomes(calls []CallRecord) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = fmt.Sprintf("%s %s %d:%d %s", c.Name, c.Outcome, c.Line, c.Column, c.Error)
	}
	return out
}

// genDiagnosed returns a script of host calls and misreadings, and
// whether its calls' arguments depend on Math.random.
func genDiagnosed(r *rand.Rand) (string, bool) {
	type producer struct{ call, kind string }
	producers := []producer{
		{`files.read_text_file({ path: "/n" + %d })`, "object"},
		{`lab.getNote({ k: %d })`, "string"},
		{`lab.countLaps({ k: %d })`, "number"},
		{`memory.read_graph({ k: %d })`, "graph"},
		{`files.directory_tree({ path: "/d" + %d })`, "object"},
		{`lab.getSessions({ trackName: "Spa", k: %d })`, "array"},
		{`saved.readNote({ path: "/s" + %d })`, "object"},
		{`saved.title({ n: %d })`, "string"},
		{`saved.graph({ k: %d })`, "graph"},
		{`saved.lapCount({ k: %d })`, "number"},
		{`codemode.describe(["lab.getSessions", %d])`, "string"},
	}
	var b strings.Builder
	random := false
	var vars []string
	kinds := map[string]string{}
	arg := func(k int) string {
		if r.IntN(12) == 0 {
			random = true
			return "Math.floor(Math.random() * 1e9)"
		}
		return strconv.Itoa(k)
	}
	call := func(k int) (string, string) {
		p := producers[r.IntN(len(producers))]
		return strings.Replace(p.call, "%d", arg(k), 1), p.kind
	}
	steps := 1 + r.IntN(5)
	for k := 0; k < steps; k++ {
		switch r.IntN(5) {
		case 0, 1:
			c, kind := call(k)
			v := "v" + strconv.Itoa(k)
			fmt.Fprintf(&b, "const %s = await %s;\n", v, c)
			vars, kinds[v] = append(vars, v), kind
		case 2:
			c1, k1 := call(k)
			c2, k2 := call(k + 100)
			a, c := "a"+strconv.Itoa(k), "c"+strconv.Itoa(k)
			fmt.Fprintf(&b, "const [%s, %s] = await Promise.all([%s, %s]);\n", a, c, c1, c2)
			vars, kinds[a], kinds[c] = append(vars, a, c), k1, k2
		case 3:
			fmt.Fprintf(&b, "await lab.addNote({ note: \"step %d\" });\n", k)
		case 4:
			if len(vars) > 0 {
				fmt.Fprintf(&b, "console.log(%q, typeof %s);\n", "step "+strconv.Itoa(k), vars[r.IntN(len(vars))])
			}
		}
	}
	if len(vars) == 0 {
		c, kind := call(99)
		fmt.Fprintf(&b, "const v = await %s;\n", c)
		vars, kinds["v"] = append(vars, "v"), kind
	}
	v := vars[r.IntN(len(vars))]
	right := map[string]string{"object": v + ".content.length", "string": v + ".length", "number": v + " + 1",
		"graph": v + ".entities.length", "array": v + ".length"}[kinds[v]]
	switch r.IntN(9) {
	case 0:
		fmt.Fprintf(&b, "return { n: %s };", right)
	case 1:
		fmt.Fprintf(&b, "return %s.split(\",\");", v)
	case 2:
		fmt.Fprintf(&b, "return %s.content.filter((x: any) => x);", v)
	case 3:
		fmt.Fprintf(&b, "return %s.filter((x: any) => x);", v)
	case 4:
		fmt.Fprintf(&b, "return %s.total.toFixed(1);", v)
	case 5:
		fmt.Fprintf(&b, "await lab.addNote({ note: %s.text });\nreturn %s;", v, right)
	case 6:
		fmt.Fprintf(&b, "await lab.addNote({ notes: [String(%s)] });\nreturn 1;", v)
	case 7:
		fmt.Fprintf(&b, "await lab.store({ entities: [{ name: \"x\", observations: [%s] }] });\nreturn 1;", v)
	case 8:
		fmt.Fprintf(&b, "try { (%s as any).nope.x; } catch (e) { console.log(String(e)); }\nthrow new Error(\"plain \" + typeof %s);", v, v)
	}
	return b.String(), random
}

// TestSecondRunThatMisbehavesIsStopped checks the limits of a second run
// whose script notices it is marked (the one thing that tells it apart)
// and then spins or, in a worker, allocates without end: the second run
// is stopped within the execution's time limit or by the worker's memory
// watchdog, and the first run's outcome stands, the host having seen
// its one call.
func TestSecondRunThatMisbehavesIsStopped(t *testing.T) {
	const notice = "const g = await memory.read_graph({});\nconst marked = Object.getPrototypeOf(g) !== Object.prototype;\n"
	cases := map[string]string{
		"spins":     notice + "if (marked) { while (true) {} }\nreturn g.filter((e: any) => e);",
		"allocates": notice + "const keep: any[] = [];\nif (marked) { while (true) keep.push(new Array(1 << 16).fill(1)); }\nreturn g.filter((e: any) => e);",
	}
	forEachMode(t, Limits{Timeout: 3 * time.Second, MemoryBytes: 64 << 20}, func(t *testing.T, sb *Sandbox) {
		for name, src := range cases {
			if name == "allocates" && strings.HasSuffix(t.Name(), "/in-process") {
				continue // in process, memory is bounded by the time limit only (see Limits.MemoryBytes)
			}
			t.Run(name, func(t *testing.T) {
				h := newLoggingHost()
				start := time.Now()
				_, err := sb.Run(context.Background(), src, h)
				took := time.Since(start)
				var se *Error
				if !errors.As(err, &se) || se.Kind != KindRuntime || se.Message != "TypeError: Object has no member 'filter'" {
					t.Fatalf("got %v, want the first run's plain TypeError", err)
				}
				if took > 3*time.Second+hardDeadlineGrace/2 {
					t.Errorf("took %s, past the 3 s limit", took)
				}
				if n := len(h.calls()); n != 1 {
					t.Errorf("the host saw %d calls, want 1", n)
				}
				// The sandbox still serves the next execution.
				if _, err := sb.Run(context.Background(), "return 1;", h); err != nil {
					t.Errorf("next execution: %v", err)
				}
			})
		}
	})
}

// TestNoSecondRunWithoutAResult checks that an undefined argument in a
// script's first call, which no host result can explain, costs no second
// run: the answer log shows none was planned.
func TestNoSecondRunWithoutAResult(t *testing.T) {
	sb := inProcessSandbox(t, Limits{})
	for src, want := range map[string]bool{
		"const x: any = {};\nawait lab.addNote({ note: x.text });\nreturn 1;":                                               false,
		"await lab.addNote({ notes: [String({})] });\nreturn 1;":                                                            false,
		"const t = await files.read_text_file({ path: \"/n\" });\nawait lab.addNote({ note: (t as any).text });\nreturn 1;": true,
	} {
		secondRuns.Store(0)
		res, err := sb.Run(context.Background(), src, newLoggingHost())
		if err != nil || len(res.Warnings) == 0 {
			t.Fatalf("%s: %v %+v, want a warning", src, err, res)
		}
		if got := secondRuns.Load() == 1; got != want {
			t.Errorf("%s: second run %v, want %v", src, got, want)
		}
	}
}

// TestSecondRunReplaysRecordedEntropy checks that when the caller records
// the clock and Math.random (RunOptions.Entropy, as codemode does for a
// run it may resume), the second run reads the same values, so a script
// whose arguments are made of them is still explained; the host saw one
// call, and the result's record is the first run's.
func TestSecondRunReplaysRecordedEntropy(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		h := newLoggingHost()
		src := "const text = await files.read_text_file({ path: \"/n\" + Math.random() + Date.now() });\nreturn text.split(\"\\n\");"
		res, err := sb.RunWith(context.Background(), src, h, &RunOptions{Entropy: &Entropy{}})
		var se *Error
		if !errors.As(err, &se) || !strings.Contains(se.Message, "text is the result of files.read_text_file (line 1)") {
			t.Fatalf("got %v, want the origin of text", err)
		}
		if n := len(h.calls()); n != 1 {
			t.Errorf("the host saw %d calls, want 1", n)
		}
		if res == nil || res.Entropy == nil || len(res.Entropy.Random) != 1 || len(res.Entropy.Times) != 1 {
			t.Errorf("entropy %+v, want the first run's one random number and one clock reading", res)
		}
	})
}
