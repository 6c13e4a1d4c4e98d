package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"sync"
	"testing"
)

// funcHost is a Host backed by Go functions, keyed by "ns.fn".
type funcHost struct {
	mu    sync.Mutex
	funcs map[string]func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)
	seen  []string // names called, in order of arrival
}

func (h *funcHost) Functions() map[string][]string {
	out := map[string][]string{}
	for name := range h.funcs {
		for i := 0; i < len(name); i++ {
			if name[i] == '.' {
				out[name[:i]] = append(out[name[:i]], name[i+1:])
				break
			}
		}
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}

func (h *funcHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	h.mu.Lock()
	h.seen = append(h.seen, name)
	f := h.funcs[name]
	h.mu.Unlock()
	if f == nil {
		return nil, errors.New("unknown function " + name)
	}
	return f(ctx, args)
}

// echoHost returns a host whose functions return {"fn": name, "args": args}.
func echoHost(names ...string) *funcHost {
	h := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){}}
	for _, n := range names {
		name := n
		h.funcs[name] = func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"fn":"` + name + `","args":` + string(args) + `}`), nil
		}
	}
	return h
}

// testModes lists the modes behaviour tests run in. Worker mode adds the
// process boundary; the behaviour must be the same.
var testModes = []Mode{ModeInProcess, ModeWorker}

// forEachMode runs f once per mode with a sandbox using lim.
func forEachMode(t *testing.T, lim Limits, f func(t *testing.T, sb *Sandbox)) {
	t.Helper()
	for _, m := range testModes {
		t.Run(m.String(), func(t *testing.T) {
			sb, err := New(&Options{Mode: m, Limits: lim, PoolSize: 1})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			t.Cleanup(func() { _ = sb.Close() })
			f(t, sb)
		})
	}
}

// inProcess returns an in-process sandbox with lim.
func inProcessSandbox(t *testing.T, lim Limits) *Sandbox {
	t.Helper()
	sb, err := New(&Options{Mode: ModeInProcess, Limits: lim})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	return sb
}

// mustRun runs src and fails the test on any error.
func mustRun(t *testing.T, sb *Sandbox, src string, host Host) *Result {
	t.Helper()
	res, err := sb.Run(context.Background(), src, host)
	if err != nil {
		t.Fatalf("Run(%q): %v", src, err)
	}
	return res
}

// runErr runs src and returns its *Error, failing the test if there is none.
func runErr(t *testing.T, sb *Sandbox, src string, host Host) (*Result, *Error) {
	t.Helper()
	res, err := sb.Run(context.Background(), src, host)
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("Run(%q) = %v, %v; want a *sandbox.Error", src, res, err)
	}
	return res, se
}

// jsonEqual reports whether two JSON texts hold equal values.
func jsonEqual(t *testing.T, got json.RawMessage, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("result %q is not JSON: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %q is not JSON: %v", want, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return string(gb) == string(wb)
}
