//go:build unix

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Programs whose compilation cost explodes with their size: goja's parser
// backtracks exponentially on nested parenthesised arrow functions with
// default parameters (n = 18: about 1 s, n = 20: about 4 s, n = 30: hours),
// and esbuild spends seconds on a long chain of curried arrows.

// parenArrowBomb nests ((a = …) => 0) n deep.
func parenArrowBomb(n int) string {
	s := "1"
	for range n {
		s = "((a = " + s + ") => 0)"
	}
	return "const f = " + s + ";\nreturn 1;"
}

// callArgBomb nests f((a = …) => 0) n deep.
func callArgBomb(n int) string {
	s := "1"
	for range n {
		s = "f((a = " + s + ") => 0)"
	}
	return "function f(x: any) { return x; }\nconst g = " + s + ";\nreturn 1;"
}

// curriedArrows chains n arrow functions a => a => … => 0.
func curriedArrows(n int) string {
	return "const f = " + strings.Repeat("a=>", n) + "0;\nreturn 1;"
}

var compileBombs = []struct{ name, src string }{
	{"parenthesised arrow defaults", parenArrowBomb(30)},
	{"call-argument defaults", callArgBomb(30)},
	{"curried arrows", curriedArrows(1400)},
}

// TestCompileBombWorker checks that a program too complex to compile ends
// with TIMEOUT by the hard deadline, is compiled in a worker (another
// principal is served meanwhile, and the host process spends no CPU on
// it), and does not delay Close.
func TestCompileBombWorker(t *testing.T) {
	for _, bomb := range compileBombs {
		t.Run(bomb.name, func(t *testing.T) {
			if len(bomb.src) > DefaultMaxCodeBytes {
				t.Fatalf("the bomb is %d bytes, over the code limit", len(bomb.src))
			}
			sb, p := newWorkerSandbox(t, Limits{}, 2)
			host := &testHost{}
			ctx := context.Background()
			const timeout = time.Second
			type outcome struct {
				err  error
				took time.Duration
			}
			cpu0 := processCPU()
			bombed := make(chan outcome, 1)
			go func() {
				start := time.Now()
				_, err := sb.RunWith(ctx, bomb.src, host, &RunOptions{Limits: Limits{Timeout: timeout}, Partition: "attacker"})
				bombed <- outcome{err, time.Since(start)}
			}()

			// Another principal is served while the bomb compiles.
			res, err := sb.RunWith(ctx, "return (await t.echo(41)) + 1", host, &RunOptions{Partition: "someone else"})
			if err != nil || string(res.Value) != "42" {
				t.Fatalf("another principal was not served: %v %v", res, err)
			}
			select {
			case o := <-bombed:
				t.Fatalf("the bomb ended before the other execution was answered: %v after %v", o.err, o.took)
			default:
			}

			o := <-bombed
			var se *Error
			if !errors.As(o.err, &se) || se.Kind != KindTimeout || !strings.Contains(se.Message, "too complex to compile") {
				t.Fatalf("err = %v, want TIMEOUT saying the code is too complex to compile", o.err)
			}
			if o.took > timeout+hardDeadlineGrace {
				t.Fatalf("the bomb was answered after %v, past timeout + %v", o.took, hardDeadlineGrace)
			}
			// The parent does not compile: a few milliseconds of its CPU,
			// where compiling the bomb costs seconds.
			if used := processCPU() - cpu0; used > timeout/2 {
				t.Errorf("the host process used %v of CPU during the bomb", used)
			}
			pids := p.pids()
			start := time.Now()
			if err := sb.Close(); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > hardDeadlineGrace {
				t.Errorf("Close took %v", took)
			}
			for _, pid := range pids {
				if syscall.Kill(pid, 0) == nil {
					t.Errorf("worker %d still runs after Close", pid)
				}
			}
		})
	}
}

// TestCompileBombCloseDuringCompile checks that Close returns by the hard
// deadline of a compilation in progress, and that executions waiting for
// a worker end with ErrClosed instead of delaying it.
func TestCompileBombCloseDuringCompile(t *testing.T) {
	sb, _ := newWorkerSandbox(t, Limits{Timeout: 2 * time.Second}, 1)
	ctx := context.Background()
	errs := make(chan error, 2)
	for range 2 { // the second waits for the only worker
		go func() {
			_, err := sb.Run(ctx, parenArrowBomb(30), nil)
			errs <- err
		}()
	}
	// Wait until one holds the worker and the other waits for it.
	p := sb.exec.(*pool)
	for {
		live, idle := p.stats()
		if s := sb.Stats(); live == 1 && idle == 0 && s.Running == 1 && s.Waiting == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	// The running execution's hard deadline is 3 s after it started,
	// before Close; the extra second absorbs a loaded machine.
	if took := time.Since(start); took > 2*time.Second+hardDeadlineGrace+time.Second {
		t.Errorf("Close took %v, past the running execution's hard deadline", took)
	}
	var closed, timedOut int
	for range 2 {
		err := <-errs
		switch {
		case errors.Is(err, ErrClosed):
			closed++
		case errors.Is(err, &Error{Kind: KindTimeout}):
			timedOut++
		default:
			t.Errorf("err = %v", err)
		}
	}
	if timedOut != 1 || closed != 1 {
		t.Errorf("%d timed out and %d closed, want one each", timedOut, closed)
	}
}

// TestCompileBombInProcess checks the in-process guarantee: the caller is
// answered with TIMEOUT by the hard deadline, Close does not wait for the
// abandoned compilation, and no more than MaxAbandonedInProcess
// compilations are left running.
func TestCompileBombInProcess(t *testing.T) {
	sb, err := New(&Options{Mode: ModeInProcess, Limits: Limits{Timeout: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	// Each bomb must still be compiling when the last of
	// MaxAbandonedInProcess runs is answered (2 × 1.3 s), and must not burn
	// the test binary's CPU for long: about 4 to 8 s each. Its cost doubles
	// with every level, so the depth comes from timing a small one on this
	// machine (a fixed depth of 21 took 4 s on one machine, 1.7 s on
	// another). Each bomb is new: a finished abandoned compilation is
	// cached.
	depth := bombDepthFor(t, 4*time.Second)
	n := 0
	bomb := func() string {
		n++
		return parenArrowBomb(depth) + fmt.Sprintf("\n// %s %d %d", t.Name(), time.Now().UnixNano(), n)
	}
	abandoned := &sb.exec.(*inProcess).abandoned
	t.Cleanup(func() {
		// Let the abandoned compilations end, so they do not load the
		// tests that follow.
		for abandoned.Load() > 0 {
			time.Sleep(10 * time.Millisecond)
		}
	})
	start := time.Now()
	_, err = sb.Run(context.Background(), bomb(), nil)
	if !errors.Is(err, &Error{Kind: KindTimeout}) || !strings.Contains(err.Error(), "too complex to compile") {
		t.Fatalf("err = %v, want TIMEOUT saying the code is too complex to compile", err)
	}
	if took := time.Since(start); took > 300*time.Millisecond+hardDeadlineGrace+time.Second {
		t.Errorf("answered after %v", took)
	}
	for range MaxAbandonedInProcess - 1 {
		if _, err := sb.Run(context.Background(), bomb(), nil); !errors.Is(err, &Error{Kind: KindTimeout}) {
			t.Fatalf("err = %v, want TIMEOUT", err)
		}
	}
	if _, err := sb.Run(context.Background(), "return 1", nil); !errors.Is(err, &Error{Kind: KindInternal}) || !strings.Contains(err.Error(), "ran past their deadline") {
		t.Errorf("with %d compilations abandoned: err = %v, want a refusal", MaxAbandonedInProcess, err)
	}
	// The bound is the caller's: another caller is still served.
	if res, err := sb.RunWith(context.Background(), "return 1", nil, &RunOptions{Partition: "another caller"}); err != nil || string(res.Value) != "1" {
		t.Errorf("another caller, with the first one's compilations abandoned: %v, %v; want 1", res, err)
	}
	start = time.Now()
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > hardDeadlineGrace {
		t.Errorf("Close took %v", took)
	}
}

// bombDepthFor returns the depth of parenArrowBomb that takes at least d
// to compile here, from the time a depth-16 bomb takes (its cost doubles
// with each level).
func bombDepthFor(t *testing.T, d time.Duration) int {
	// The fastest of three: a timing inflated by a moment of load would
	// give bombs that finish too soon.
	took := time.Hour
	for i := range 3 {
		code := parenArrowBomb(16) + fmt.Sprintf("\n// %s %d %d", t.Name(), time.Now().UnixNano(), i)
		start := time.Now()
		if _, err := compile(source{key: sourceKey(t.Name(), code), ts: code}, DefaultMaxCodeBytes); err != nil {
			t.Fatal(err)
		}
		took = min(took, time.Since(start))
	}
	took = max(took, time.Millisecond)
	depth := 16 + int(math.Ceil(math.Log2(float64(d)/float64(took))))
	t.Logf("a depth-16 bomb compiles in %v: using depth %d", took, depth)
	return depth
}

// processCPU is the user and system CPU time of this process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
