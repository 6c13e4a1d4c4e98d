// Package leakcheck fails a test run that leaves goroutines behind. It
// replaces go.uber.org/goleak in the tests of the root module, whose
// go.mod every consumer's module graph includes, test-only requirements
// too: a consumer of the library should not see a test library in its
// dependency review. It does what those tests used of goleak and no more.
//
// A goroutine is a leak unless it is the one checking, it ran before
// [IgnoreCurrent] was taken, or it is one the runtime, os/signal or the
// testing package keeps for the whole process (the list goleak keeps, see
// ignoredByDefault). Goroutines that are ending when the check starts get
// time to end: the check looks again, with growing pauses, for about two
// seconds before it reports.
package leakcheck

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// An Option changes which goroutines a check ignores.
type Option func(*options)

type options struct {
	ignore []func(goroutine) bool
}

// IgnoreTopFunction ignores goroutines whose innermost frame is the
// function fn, named as in a stack trace: "net/http.(*persistConn).readLoop".
func IgnoreTopFunction(fn string) Option {
	return func(o *options) {
		o.ignore = append(o.ignore, func(g goroutine) bool { return g.top == fn })
	}
}

// IgnoreCurrent ignores every goroutine that exists when it is called.
func IgnoreCurrent() Option {
	ids := map[int]bool{}
	for _, g := range goroutines() {
		ids[g.id] = true
	}
	return func(o *options) {
		o.ignore = append(o.ignore, func(g goroutine) bool { return ids[g.id] })
	}
}

// Find returns an error listing the goroutines that outlive the check's
// patience, or nil.
func Find(opts ...Option) error {
	o := &options{ignore: []func(goroutine) bool{ignoredByDefault}}
	for _, opt := range opts {
		opt(o)
	}
	self := current()
	var left []goroutine
	for i := 0; ; i++ {
		left = left[:0]
		for _, g := range goroutines() {
			if g.id != self && !o.ignored(g) {
				left = append(left, g)
			}
		}
		if len(left) == 0 {
			return nil
		}
		if i == retries {
			break
		}
		time.Sleep(min(time.Microsecond<<i, maxPause))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d unexpected goroutines:", len(left))
	for _, g := range left {
		b.WriteString("\n\n")
		b.WriteString(g.stack)
	}
	return fmt.Errorf("%s", b.String())
}

// retries and maxPause give ending goroutines about two seconds: pauses
// of 1 µs doubling up to 100 ms, 20 times (goleak's defaults).
const (
	retries  = 20
	maxPause = 100 * time.Millisecond
)

// VerifyNone fails t if Find finds goroutines. Call it deferred, at the
// start of a test that runs alone, with IgnoreCurrent().
func VerifyNone(t testing.TB, opts ...Option) {
	t.Helper()
	if err := Find(opts...); err != nil {
		t.Error(err)
	}
}

// VerifyTestMain runs the tests and, when they pass, exits with status 1
// if goroutines outlive them: call it from TestMain.
func VerifyTestMain(m *testing.M, opts ...Option) {
	code := m.Run()
	if code == 0 {
		if err := Find(opts...); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func (o *options) ignored(g goroutine) bool {
	for _, f := range o.ignore {
		if f(g) {
			return true
		}
	}
	return false
}

// ignoredByDefault are the goroutines that live as long as the process:
// the testing package's, waiting for tests that run (parallel ones too)
// or for fuzzing; a cgo callback's, in a system call; os/signal's; and
// the execution tracer's reader.
func ignoredByDefault(g goroutine) bool {
	switch g.top {
	case "testing.RunTests", "testing.(*T).Run", "testing.(*T).Parallel", "testing.runFuzzing", "testing.runFuzzTests":
		return strings.HasPrefix(g.state, "chan receive")
	case "os/signal.signal_recv", "os/signal.loop":
		return true
	}
	return g.has("runtime.goexit") && strings.HasPrefix(g.state, "syscall") ||
		g.has("runtime.ensureSigM") || g.has("runtime.ReadTrace")
}

// goroutine is one goroutine of a stack dump.
type goroutine struct {
	id    int
	state string   // "chan receive", "select, 2 minutes", ...
	top   string   // the innermost function
	funcs []string // every function on its stack, innermost first
	stack string   // as runtime.Stack printed it
}

func (g goroutine) has(fn string) bool {
	for _, f := range g.funcs {
		if f == fn {
			return true
		}
	}
	return false
}

// current is the calling goroutine's id.
func current() int {
	gs := parse(dump(false))
	if len(gs) == 0 {
		return -1
	}
	return gs[0].id
}

func goroutines() []goroutine { return parse(dump(true)) }

func dump(all bool) []byte {
	for n := 64 << 10; ; n *= 2 {
		buf := make([]byte, n)
		if m := runtime.Stack(buf, all); m < n {
			return buf[:m]
		}
	}
}

// parse reads runtime.Stack's output: blocks separated by blank lines,
// each a header "goroutine 7 [chan receive]:" (newer runtimes may add
// fields before the bracket), then a function line and a tab-indented
// position line per frame, ending with "created by ...".
func parse(b []byte) []goroutine {
	var out []goroutine
	for block := range bytes.SplitSeq(bytes.TrimSpace(b), []byte("\n\n")) {
		lines := strings.Split(string(block), "\n")
		head, ok := strings.CutPrefix(lines[0], "goroutine ")
		if !ok {
			continue
		}
		idText, rest, _ := strings.Cut(head, " ")
		id, err := strconv.Atoi(idText)
		if err != nil {
			continue
		}
		g := goroutine{id: id, stack: string(block)}
		if i, j := strings.Index(rest, "["), strings.LastIndex(rest, "]"); i >= 0 && j > i {
			g.state = rest[i+1 : j]
		}
		for _, l := range lines[1:] {
			if l == "" || strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "...") {
				continue
			}
			if strings.HasPrefix(l, "created by ") {
				break
			}
			fn := l
			if i := strings.LastIndex(l, "("); i > 0 && strings.HasSuffix(l, ")") {
				fn = l[:i]
			}
			g.funcs = append(g.funcs, fn)
		}
		if len(g.funcs) > 0 {
			g.top = g.funcs[0]
		}
		out = append(out, g)
	}
	return out
}
