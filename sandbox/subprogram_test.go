package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
)

// subHost is a funcHost whose namespace "saved" holds sub-programs.
type subHost struct {
	*funcHost
	code  map[string]string // name → code
	mu    sync.Mutex
	froms []string // CallPosition.From of each host call
}

func (h *subHost) Functions() map[string][]string {
	out := h.funcHost.Functions()
	for n := range h.code {
		out["saved"] = append(out["saved"], n)
	}
	return out
}

func (h *subHost) SubprogramNamespaces() []string { return []string{"saved"} }

func (h *subHost) Subprogram(_ context.Context, name string, args json.RawMessage) (*Subprogram, error) {
	fn := strings.TrimPrefix(name, "saved.")
	code, ok := h.code[fn]
	if !ok {
		return nil, errors.New(name + " is not found")
	}
	if strings.Contains(string(args), `"_validateOnly":true`) {
		return &Subprogram{Key: fn + "@1", Label: name + " version 1", Result: json.RawMessage(`{"valid":true}`)}, nil
	}
	return &Subprogram{Key: fn + "@1", Label: name + " version 1", Code: code, Input: args}, nil
}

func (h *subHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	pos, _ := PositionOf(ctx)
	h.mu.Lock()
	h.froms = append(h.froms, pos.From)
	h.mu.Unlock()
	return h.funcHost.Call(ctx, name, args)
}

func newSubHost(code map[string]string) *subHost {
	h := &subHost{funcHost: echoHost("db.get"), code: code}
	h.funcs["db.fail"] = func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New("db.fail refused")
	}
	return h
}

func TestSubprogramRunsInsideTheExecution(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		h := newSubHost(map[string]string{
			"twice":  "const r = await db.get({ n: input.n });\nreturn { got: r.args.n, double: input.n * 2 };",
			"outer":  "const a = await saved.twice({ n: input.n });\nreturn a.double + 1;",
			"boom":   "const x = 1;\n  null.f;\nreturn x;",
			"loop":   "return await saved.loop({});",
			"dry":    "return 1;",
			"escape": "return 1 } catch (e) {} finally { globalThis.x = 1 }\n  try {",
			"bad":    "const a = 1;\nawait db.fail({ a });\nreturn a;",
			"typed":  "const x: any = null;\nconst y: number = 2;\n  x.f;\nreturn y;",
		})
		res := mustRun(t, sb, `const r = await db.get({n: 0}); return [await saved.twice({ n: 3 }), await saved.outer({ n: 4 })];`, h)
		if !jsonEqual(t, res.Value, `[{"got":3,"double":6},9]`) {
			t.Fatalf("value %s", res.Value)
		}
		if len(res.Calls) != 3 {
			t.Fatalf("calls %+v, want 3 host calls counted", res.Calls)
		}
		want := []string{"", "saved.twice version 1", "saved.twice version 1"}
		if strings.Join(h.froms, "|") != strings.Join(want, "|") {
			t.Fatalf("From %q, want %q", h.froms, want)
		}

		res = mustRun(t, sb, `try { await saved.boom({}) } catch (e) { return e.message }`, h)
		var msg string
		_ = json.Unmarshal(res.Value, &msg)
		if !strings.HasPrefix(msg, "in saved.boom version 1, line 2 column ") {
			t.Fatalf("error %q does not name the function and its line", msg)
		}

		res = mustRun(t, sb, `try { await saved.escape({}) } catch (e) { return e.message + " " + typeof globalThis.x }`, h)
		_ = json.Unmarshal(res.Value, &msg)
		if !strings.Contains(msg, "closes more braces than it opens") || !strings.HasSuffix(msg, "undefined") {
			t.Fatalf("escaping code: %q", msg)
		}

		res = mustRun(t, sb, `try { await saved.bad({}) } catch (e) { return e.message }`, h)
		_ = json.Unmarshal(res.Value, &msg)
		if !strings.HasPrefix(msg, "in saved.bad version 1, line 2 column ") || !strings.Contains(msg, "db.fail refused") {
			t.Fatalf("a failed host call inside: %q", msg)
		}

		res = mustRun(t, sb, `try { await saved.typed({}) } catch (e) { return e.message }`, h)
		_ = json.Unmarshal(res.Value, &msg)
		if !strings.HasPrefix(msg, "in saved.typed version 1, line 3 column ") {
			t.Fatalf("TypeScript error %q does not name its line", msg)
		}

		res = mustRun(t, sb, `try { await saved.loop({}) } catch (e) { return e.message }`, h)
		_ = json.Unmarshal(res.Value, &msg)
		if !strings.Contains(msg, "sub-programs deep, the most allowed") {
			t.Fatalf("recursion: %q", msg)
		}

		res = mustRun(t, sb, `return await saved.dry({ _validateOnly: true })`, h)
		if !jsonEqual(t, res.Value, `{"valid":true}`) {
			t.Fatalf("dry run %s", res.Value)
		}

		res = mustRun(t, sb, `try { await saved.gone({}) } catch (e) { return e.message }`, h)
		_ = json.Unmarshal(res.Value, &msg)
		if !strings.Contains(msg, "saved.gone is not a function") {
			t.Fatalf("unknown: %q", msg)
		}
	})
}

func TestSubprogramSharesTheCallLimit(t *testing.T) {
	forEachMode(t, Limits{MaxCalls: 2}, func(t *testing.T, sb *Sandbox) {
		h := newSubHost(map[string]string{"three": "for (let i = 0; i < 3; i++) await db.get({ i });\nreturn 1;"})
		res := mustRun(t, sb, `await db.get({}); try { await saved.three({}); } catch (e) { return e.message }`, h)
		var msg string
		_ = json.Unmarshal(res.Value, &msg)
		if !strings.Contains(msg, "call limit reached") || !strings.HasPrefix(msg, "in saved.three version 1") {
			t.Fatalf("%q", msg)
		}
	})
}
