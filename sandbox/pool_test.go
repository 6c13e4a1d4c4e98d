package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// testHost is the host the worker tests bind as t.*.
type testHost struct {
	barrier *sync.WaitGroup // echo waits on it when set
}

func (h *testHost) Functions() map[string][]string {
	return map[string][]string{"t": {"echo", "fail", "panic", "slow", "big", "wait"}}
}

type issuesErr struct{}

func (issuesErr) Error() string { return "Validation failed" }
func (issuesErr) MarshalJSON() ([]byte, error) {
	return []byte(`{"error":"Validation failed","issues":[{"path":["lap"],"message":"must be positive"}]}`), nil
}

func (h *testHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	switch name {
	case "t.echo":
		return args, nil
	case "t.fail":
		return nil, issuesErr{}
	case "t.panic":
		panic("host bug")
	case "t.slow":
		<-ctx.Done()
		return nil, ctx.Err()
	case "t.big":
		return json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`), nil
	case "t.wait":
		// All callers must be in flight at once to pass the barrier.
		h.barrier.Done()
		done := make(chan struct{})
		go func() { h.barrier.Wait(); close(done) }()
		select {
		case <-done:
			return args, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, fmt.Errorf("no function %s", name)
}

func newWorkerSandbox(t testing.TB, lim Limits, size int) (*Sandbox, *pool) {
	t.Helper()
	sb, err := New(&Options{Limits: lim, PoolSize: size})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := sb.exec.(*pool)
	if !ok {
		t.Fatalf("default mode runs %T, want the worker pool", sb.exec)
	}
	t.Cleanup(func() { sb.Close() })
	return sb, p
}

func TestWorkerRunsScripts(t *testing.T) {
	sb, _ := newWorkerSandbox(t, Limits{}, 1)
	ctx := context.Background()
	for _, tc := range []struct {
		name, src string
		value     string
		kind      Kind
	}{
		{"return", "return 1 + 1", "2", ""},
		{"host call", `return await t.echo({a: [1, "x"]})`, `{"a":[1,"x"]}`, ""},
		{"host error issues", `try { await t.fail({}) } catch (e: any) { return [e.message, e.issues[0].path[0]] }`, `["Validation failed","lap"]`, ""},
		{"runtime error", "\n\nnull.x", "", KindRuntime},
		{"syntax", "let = ;", "", KindSyntax},
		{"console", `console.log("hi", {a: 1}); return null`, "null", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := sb.Run(ctx, tc.src, &testHost{})
			if tc.kind != "" {
				var e *Error
				if !errors.As(err, &e) || e.Kind != tc.kind {
					t.Fatalf("err = %v, want kind %s", err, tc.kind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Value) != tc.value {
				t.Fatalf("value %s, want %s", res.Value, tc.value)
			}
		})
	}
}

func TestWorkerConcurrentHostCalls(t *testing.T) {
	sb, _ := newWorkerSandbox(t, Limits{}, 1)
	var barrier sync.WaitGroup
	barrier.Add(3)
	res, err := sb.Run(context.Background(),
		`return await Promise.all([t.wait(1), t.wait(2), t.wait(3)])`, &testHost{barrier: &barrier})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Value) != "[1,2,3]" {
		t.Fatalf("value %s", res.Value)
	}
}

func TestWorkerCancel(t *testing.T) {
	sb, p := newWorkerSandbox(t, Limits{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	_, err := sb.Run(ctx, `await t.slow({}); return 1`, &testHost{})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindCancelled {
		t.Fatalf("err = %v, want CANCELLED", err)
	}
	if res, err := sb.Run(context.Background(), "return 5", &testHost{}); err != nil || string(res.Value) != "5" {
		t.Fatalf("after cancel: %v %v", res, err)
	}
	_ = p
}

func TestWorkerCloseLeavesNoProcess(t *testing.T) {
	sb, p := newWorkerSandbox(t, Limits{}, 2)
	for range 3 {
		if _, err := sb.Run(context.Background(), "return 1", &testHost{}); err != nil {
			t.Fatal(err)
		}
	}
	pids := p.pids()
	if len(pids) == 0 {
		t.Fatal("no live workers after executions")
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("worker %d still exists after Close (kill 0: %v)", pid, err)
		}
	}
	if _, err := sb.Run(context.Background(), "return 1", &testHost{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Run after Close: %v", err)
	}
	_ = os.Getpid
}
