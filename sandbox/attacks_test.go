//go:build unix

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAttacks runs every script in testdata/attacks against the default
// worker pool. The first line of each file says what must happen:
//
//	// expect: KIND            the execution fails with that error kind
//	// expect: value JSON      it succeeds with that value, twice in a row
//	// expect: truncated       it succeeds with output cut at the limit
//
// After each attack the next execution on the same pool must work, and at
// the end the test process's RSS must have grown by less than 64 MiB.
func TestAttacks(t *testing.T) {
	files, err := filepath.Glob("testdata/attacks/*.ts")
	if err != nil || len(files) == 0 {
		t.Fatalf("no attack scripts: %v", err)
	}
	// Memory keeps its default. Attacks expected to time out run with a
	// 1 s timeout (a per-execution override) to keep the suite fast; the
	// others get 30 s, so a loaded machine cannot turn a memory breach into
	// a timeout (they end in well under a second on an idle one).
	sb, p := newWorkerSandbox(t, Limits{Timeout: 30 * time.Second}, 1)
	host := &testHost{}
	ctx := context.Background()
	probe := func(t *testing.T) {
		t.Helper()
		res, err := sb.Run(ctx, "return (await t.echo(41)) + 1", host)
		if err != nil || string(res.Value) != "42" {
			t.Fatalf("the pool does not work after the attack: %v %v", res, err)
		}
	}
	probe(t)
	runtime.GC()
	rssBefore := vmRSS(t)

	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".ts")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := bytes.Cut(src, []byte("\n"))
			expect, ok := strings.CutPrefix(string(first), "// expect: ")
			if !ok {
				t.Fatalf("first line %q is not an expectation", first)
			}
			pidsBefore := p.pids()
			switch {
			case expect == "truncated":
				res, err := sb.Run(ctx, string(src), host)
				if err != nil {
					t.Fatalf("error %v, want a truncated result", err)
				}
				if !res.Truncated || len(res.Value) > DefaultMaxOutputBytes+1024 {
					t.Fatalf("truncated=%v, %d-byte value", res.Truncated, len(res.Value))
				}
				logged := 0
				for _, l := range res.Logs {
					logged += len(l.Message)
				}
				if logged > DefaultMaxOutputBytes+1024 {
					t.Fatalf("%d bytes of logs", logged)
				}
				marker := strings.Contains(string(res.Value), "output limit")
				if n := len(res.Logs); n > 0 && strings.Contains(res.Logs[n-1].Message, "output limit") {
					marker = true
				}
				if !marker {
					t.Fatal("no truncation marker in the value or the last log entry")
				}
			case strings.HasPrefix(expect, "value "):
				want := strings.TrimPrefix(expect, "value ")
				for run := 1; run <= 2; run++ {
					res, err := sb.Run(ctx, string(src), host)
					if err != nil {
						t.Fatalf("run %d: %v", run, err)
					}
					if string(res.Value) != want {
						t.Fatalf("run %d: value %s, want %s", run, res.Value, want)
					}
				}
			default:
				lim := sb.Limits()
				if strings.Contains(expect, string(KindTimeout)) {
					lim.Timeout = time.Second
				}
				start := time.Now()
				res, err := sb.RunWith(ctx, string(src), host, &RunOptions{Limits: lim})
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("err = %v, want an *Error of kind %s", err, expect)
				}
				// Every byte the model receives counts against the one
				// output limit; data cut to fit stays valid JSON.
				if n := modelBytes(res, e); n > DefaultMaxOutputBytes+1024 {
					t.Fatalf("the model receives %d bytes, over the %d-byte output limit", n, DefaultMaxOutputBytes)
				}
				if len(e.Data) > 0 && !json.Valid(e.Data) {
					t.Fatalf("error data is not valid JSON: %.200s", e.Data)
				}
				for _, goText := range []string{"json:", "MarshalJSON", "goroutine", ".go:"} {
					if strings.Contains(e.Message, goText) {
						t.Fatalf("Go internals in the message: %s", e.Message)
					}
				}
				if !slices.Contains(strings.Split(expect, "|"), string(e.Kind)) {
					t.Fatalf("kind %s (%s), want %s", e.Kind, e.Message, expect)
				}
				// Every attack ends by the hard deadline (timeout + 1 s); the
				// extra second absorbs a loaded machine.
				if took := time.Since(start); took > lim.Timeout+hardDeadlineGrace+time.Second {
					t.Fatalf("the attack took %v", took)
				}
				if e.Message == "" {
					t.Fatal("empty message")
				}
				t.Logf("%s after %v: %.300s", e.Kind, time.Since(start).Round(time.Millisecond), e.Message)
				if e.Kind == KindMemoryLimit || e.Kind == KindTimeout {
					// A breached worker must never serve again: of the
					// workers alive before, the one that served is gone
					// (the others, such as the spare kept for the
					// reserve, may stay).
					if len(pidsBefore) > 0 {
						kept := 0
						for _, pid := range p.pids() {
							if slices.Contains(pidsBefore, pid) {
								kept++
							}
						}
						if kept == len(pidsBefore) {
							t.Fatalf("every worker alive before the attack (%v) is still in the pool: the one that served it was not replaced", pidsBefore)
						}
					}
				}
			}
			probe(t)
		})
	}

	runtime.GC()
	grown := vmRSS(t) - rssBefore
	t.Logf("test process RSS grew by %d KiB over %d attacks; largest peak RSS of a replaced worker: %d MiB",
		grown>>10, len(files), p.peakRSS.Load()>>20)
	if grown >= 64<<20 {
		t.Fatalf("test process RSS grew by %d MiB, want < 64 MiB", grown>>20)
	}
}

// modelBytes counts what the model reads of an execution: the value, the
// logs, the call records' errors and the error's text and data.
func modelBytes(res *Result, e *Error) int {
	n := 0
	if res != nil {
		n += len(res.Value)
		for _, l := range res.Logs {
			n += len(l.Message)
		}
		for _, c := range res.Calls {
			n += len(c.Error)
		}
	}
	if e != nil {
		n += len(e.Message) + len(e.Stack) + len(e.Source) + len(e.Data)
	}
	return n
}

// vmRSS returns this process's resident set size.
func vmRSS(t testing.TB) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for line := range bytes.Lines(b) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
			f := bytes.Fields(rest)
			kb, err := strconv.ParseInt(string(f[0]), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS line")
	return 0
}
