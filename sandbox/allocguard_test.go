//go:build unix

package sandbox

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hugeTypedArray asks for 800 MB in one constructor call: the allocation
// that once returned OK in 0.01 s, between two samples of the watchdog.
const hugeTypedArray = `return new Float64Array(1e8).length`

// wantRefused asserts that err is the allocation guard's MEMORY_LIMIT (not a
// worker death or a watchdog interrupt that happened to win a race).
func wantRefused(t *testing.T, what string, res *Result, err error, ctor string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindMemoryLimit {
		t.Fatalf("%s: %v %v, want MEMORY_LIMIT", what, res, err)
	}
	if !strings.Contains(e.Message, "asked for a "+ctor) {
		t.Fatalf("%s: MEMORY_LIMIT without the guard's message: %s", what, e.Message)
	}
	if res != nil && res.Value != nil && string(res.Value) != "null" {
		t.Fatalf("%s: a value came back with the error: %s", what, res.Value)
	}
}

// TestTypedArrayRefusedOnEveryPath runs the 800 MB typed array on every
// path an execution can take, repeatedly, and asserts MEMORY_LIMIT from
// the guard every time: in process, on a fresh worker (first execution of
// a new sandbox), on a reused worker (after a clean execution), on a warm
// worker (its heap grown and collected: without the guard, 16 of 160 such
// runs returned OK), on the
// reserve's spare (while another caller holds the only pool worker), and
// after the workers were killed from outside (lost before start, retried
// on a new worker).
func TestTypedArrayRefusedOnEveryPath(t *testing.T) {
	ctx := context.Background()
	lim := Limits{Timeout: 30 * time.Second}
	const rounds = 5

	t.Run("in-process", func(t *testing.T) {
		sb := inProcessSandbox(t, lim)
		for i := range rounds * 4 {
			res, err := sb.Run(ctx, hugeTypedArray, nil)
			wantRefused(t, "round "+strconv.Itoa(i), res, err, "Float64Array")
		}
	})
	t.Run("fresh-worker", func(t *testing.T) {
		for i := range rounds {
			sb, _ := newWorkerSandbox(t, lim, 1)
			res, err := sb.Run(ctx, hugeTypedArray, nil)
			wantRefused(t, "round "+strconv.Itoa(i), res, err, "Float64Array")
			_ = sb.Close()
		}
	})
	sb, p := newWorkerSandbox(t, lim, 1)
	t.Run("reused-worker", func(t *testing.T) {
		for i := range rounds {
			if res, err := sb.Run(ctx, "return 1", nil); err != nil || string(res.Value) != "1" {
				t.Fatalf("clean run: %v %v", res, err)
			}
			res, err := sb.Run(ctx, hugeTypedArray, nil)
			wantRefused(t, "round "+strconv.Itoa(i), res, err, "Float64Array")
		}
	})
	t.Run("warm-worker", func(t *testing.T) {
		// The path that slipped: a worker whose heap had grown and been
		// collected needs no fresh mapping for the buffer, which the
		// kernel's data cap then does not see (internal/proc/rlimit.go).
		for i := range rounds {
			warm := `const a: string[] = []; for (let i = 0; i < 1e5; i++) a.push("x" + i); return a.length`
			if res, err := sb.Run(ctx, warm, nil); err != nil || string(res.Value) != "100000" {
				t.Fatalf("warming: %v %v", res, err)
			}
			res, err := sb.Run(ctx, hugeTypedArray, nil)
			wantRefused(t, "round "+strconv.Itoa(i), res, err, "Float64Array")
			res, err = sb.Run(ctx, "const a: string[] = []; for (let i = 0; i < 1e5; i++) a.push('x' + i); "+strings.TrimPrefix(hugeTypedArray, "return ")+"; return a.length", nil)
			wantRefused(t, "round "+strconv.Itoa(i)+", same run", res, err, "Float64Array")
		}
	})
	t.Run("spare-worker", func(t *testing.T) {
		for i := range rounds {
			host := &enteredHost{entered: make(chan struct{}, 1)}
			bctx, cancel := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = sb.RunWith(bctx, "await t.block({})", host, &RunOptions{Partition: "holder"})
			}()
			<-host.entered
			res, err := sb.RunWith(ctx, hugeTypedArray, nil, &RunOptions{Partition: "newcomer"})
			cancel()
			<-done
			wantRefused(t, "round "+strconv.Itoa(i), res, err, "Float64Array")
		}
	})
	t.Run("after-crash", func(t *testing.T) {
		for i := range rounds {
			if _, err := sb.Run(ctx, "return 1", nil); err != nil {
				t.Fatal(err)
			}
			for _, pid := range p.pids() {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			res, err := sb.Run(ctx, hugeTypedArray, nil)
			wantRefused(t, "round "+strconv.Itoa(i), res, err, "Float64Array")
		}
	})
}

// TestAllocationGuardRoutes covers every way to ask for a buffer, in both
// modes: each oversized request ends with MEMORY_LIMIT (even inside
// try/catch), each modest one works as in plain JavaScript.
func TestAllocationGuardRoutes(t *testing.T) {
	refused := []struct{ name, src, ctor string }{
		{"ArrayBuffer", `return new ArrayBuffer(8e8).byteLength`, "ArrayBuffer"},
		{"length as string", `return new Uint8Array("900000000").length`, "Uint8Array"},
		{"array-like", `return new Float64Array({ length: 1e8 }).length`, "Float64Array"},
		{"lying length getter", `let n = 0; const o = { get length() { return n++ === 0 ? 1e8 : 2 } }; return new Float64Array(o).length`, "Float64Array"},
		{"from array-like", `return Float64Array.from({ length: 1e8 }).length`, "Float64Array"},
		{"widening copy", `const small = new Uint8Array(20 << 20); return new Float64Array(small).length`, "Float64Array"},
		{"subclass", `class Big extends Float64Array {}; return new Big(1e8).length`, "Float64Array"},
		{"Reflect.construct", `return Reflect.construct(BigInt64Array, [1e8]).length`, "BigInt64Array"},
		{"constructor of an instance", `const C = new Int32Array(1).constructor; return new C(3e8).length`, "Int32Array"},
		{"dynamic global name", `const C = (globalThis as any)["Float" + "32Array"]; return new C(3e8).length`, "Float32Array"},
		{"escaped identifier", `return new Float64\u0041rray(1e8).length`, "Float64Array"},
		{"escaped global", `return new (gl\u006fbalThis as any)["Float64" + "Arr" + "ay"](1e8).length`, "Float64Array"},
		{"this at the top", `const g: any = this; return new g["Float64" + "Arr" + "ay"](1e8).length`, "Float64Array"},
		{"this in an arrow", `const f = () => (this as any)["Uint8" + "Arr" + "ay"]; return new (f())(9e8).length`, "Uint8Array"},
		{"caught", `try { new Float64Array(1e8) } catch (e) { return "caught" } return "after"`, "Float64Array"},
	}
	works := []struct{ name, src, want string }{
		{"length", `return new Float64Array(3).length`, `3`},
		{"array", `return Array.from(new Int16Array([1, 2, 70000]))`, `[1,2,4464]`},
		{"iterable", `return Array.from(new Uint8Array(new Set([1, 2, 3])))`, `[1,2,3]`},
		{"array-like", `return Array.from(new Float32Array({ length: 2, 0: 1.5, 1: 2.5 }))`, `[1.5,2.5]`},
		{"buffer view", `const b = new ArrayBuffer(16); new Float64Array(b)[1] = 2; return new Float64Array(b, 8, 1)[0]`, `2`},
		{"instanceof and constructor", `const a = new Uint8Array(2); return [a instanceof Uint8Array, a.constructor === Uint8Array, Object.getPrototypeOf(a) === Uint8Array.prototype]`, `[true,true,true]`},
		{"statics", `return [Float64Array.BYTES_PER_ELEMENT, Array.from(Int8Array.of(1, 2)), Array.from(Uint8Array.from([3]))]`, `[8,[1,2],[3]]`},
		{"species", `return Array.from(new Int8Array([1, 2, 3]).map(x => x * 2).slice(1))`, `[4,6]`},
		{"subclass", `class Pair extends Float64Array { sum() { return this[0] + this[1] } }; const p = new Pair([1, 2]); return [p.sum(), p instanceof Pair, p instanceof Float64Array]`, `[3,true,true]`},
		{"valueOf read once", `let n = 0; return new ArrayBuffer({ valueOf() { return n++ ? 8e8 : 8 } } as any).byteLength`, `8`},
		{"length grows after the check", `let n = 0; const o = { get length() { return n++ === 0 ? 2 : 1e8 } }; try { new Float64Array(o as any) } catch (e) { return (e as Error).name } return "no error"`, `"RangeError"`},
		{"modest", `return new Uint8Array(1 << 20).length`, `1048576`},
		{"without new", `try { (Uint8Array as any)(1) } catch (e) { return (e as Error).name } return "no error"`, `"TypeError"`},
	}
	forEachMode(t, Limits{Timeout: 30 * time.Second}, func(t *testing.T, sb *Sandbox) {
		for _, tc := range refused {
			res, err := sb.Run(context.Background(), tc.src, nil)
			wantRefused(t, tc.name, res, err, tc.ctor)
		}
		for _, tc := range works {
			res, err := sb.Run(context.Background(), tc.src, nil)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if !jsonEqual(t, res.Value, tc.want) {
				t.Fatalf("%s: %s, want %s", tc.name, res.Value, tc.want)
			}
		}
	})
}
