package discover

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// readTool is a read-only tool over testIndex's functions: it binds the
// two reads, and deleteSession is the full tool's.
type readTool struct{}

func (readTool) Namespaces() []string { return []string{"bl"} }
func (readTool) Bound() []string      { return []string{"bl.getSessions", "bl.getWeather"} }
func (readTool) Display(id string) string {
	return strings.TrimPrefix(id, "bl.")
}

func (readTool) Tier(id string) (string, bool) {
	if id == "bl.getSessions" || id == "bl.getWeather" {
		return "READ-ONLY", true
	}
	return "", false
}

func (readTool) Withheld(id string) string {
	if id == "bl.deleteSession" {
		return "bl.deleteSession is not available in execute_readonly_code because it writes (tier MUTATING); call it from execute_code."
	}
	return ""
}

func (readTool) Declare(ids []string) (string, error) {
	return "declare " + strings.Join(ids, ", "), nil
}

func TestToolCalls(t *testing.T) {
	x := testIndex(t)
	for _, tt := range []struct {
		fn, args, want string
	}{
		// Names resolve unqualified, repeat once, and come sorted.
		{"describe", `[["getWeather", "bl.getSessions", "getWeather"]]`, `"declare bl.getSessions, bl.getWeather"`},
		{"describe", `["getWeather"]`, `"declare bl.getWeather"`},
		{"search", `["delete a session"]`, `[{"name":"getSessions","tier":"READ-ONLY","summary":"Lists your sessions, newest first."}`},
	} {
		out, err := x.Call(readTool{}, tt.fn, json.RawMessage(tt.args))
		if err != nil || !strings.HasPrefix(string(out), tt.want) {
			t.Errorf("%s(%s) = %s, %v; want %s…", tt.fn, tt.args, out, err, tt.want)
		}
	}
	for _, tt := range []struct {
		args, want string
	}{
		{`["deleteSession"]`, "codemode.describe: bl.deleteSession is not available in execute_readonly_code"},
		{`["getSesions"]`, `codemode.describe: bl has no function "getSesions" (did you mean "getSessions"?)`},
		{`["forecast"]`, `codemode.describe: bl has no function "forecast". `},
	} {
		_, err := x.Call(readTool{}, "describe", json.RawMessage(tt.args))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("describe(%s): %v; want %s…", tt.args, err, tt.want)
		}
	}
	if _, err := x.Call(readTool{}, "list", json.RawMessage(`[]`)); err == nil || !strings.Contains(err.Error(), "is not a function") {
		t.Errorf("list: %v", err)
	}
	if got := x.Suggest(readTool{}, "weather"); !strings.Contains(got, "bl.getWeather") || strings.Contains(got, "deleteSession") {
		t.Errorf("Suggest names a function the tool does not bind, or misses one: %s", got)
	}
}

// A Budget refuses every call past MaxCalls, and past MaxWork of host
// time answers only from the cache; each error says what to do.
func TestBudget(t *testing.T) {
	var c Cache
	var b Budget
	computed := 0
	answer := func(args string) (json.RawMessage, error) {
		return b.Answer(&c, 1, Key{Tool: "t", Fn: "describe", Args: args}, func() (json.RawMessage, error) {
			computed++
			if args == "bad" {
				return nil, errors.New("no such function")
			}
			return json.RawMessage(`"decl"`), nil
		})
	}
	for range 2 {
		if out, err := answer("a"); err != nil || string(out) != `"decl"` {
			t.Fatalf("answer: %s, %v", out, err)
		}
		if _, err := answer("bad"); err == nil {
			t.Fatal("an error answer was lost")
		}
	}
	if computed != 2 {
		t.Fatalf("computed %d answers for 4 calls of 2 questions, want 2: errors are cached too", computed)
	}
	b.work = MaxWork + time.Millisecond
	if _, err := answer("a"); err != nil {
		t.Fatalf("a cached answer past the time budget: %v", err)
	}
	_, err := answer("b")
	if err == nil || !strings.Contains(err.Error(), "host time") || !strings.Contains(err.Error(), "new execution") {
		t.Fatalf("uncached answer past the time budget: %v", err)
	}
	b.Reset()
	for i := range MaxCalls {
		if _, err := answer("a"); err != nil {
			t.Fatalf("call %d of %d refused: %v", i+1, MaxCalls, err)
		}
	}
	_, err = answer("a")
	if err == nil || !strings.Contains(err.Error(), "describe every function you need in one call") {
		t.Fatalf("call past MaxCalls: %v", err)
	}
}

func TestDescription(t *testing.T) {
	d := Description{Namespace: "bl", CallAs: "bl", Timeout: 10 * time.Second, Memory: 32 << 20, MaxCalls: 20, MaxCode: 10 << 10, MaxOutput: 100 << 10, Example: Example("bl", "getSessions"), Declarations: "declare namespace bl {}"}
	full, err := d.Render()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"10 s in total, 32 MB of memory, 20 function calls, 10 KB of code, 100 KB of logs", "await bl.getSessions(", "TypeScript declarations of `bl`"} {
		if !strings.Contains(full, want) {
			t.Errorf("full description lacks %q", want)
		}
	}
	d.Timeout, d.MaxCode, d.Index, d.Count = 1500*time.Millisecond, 1000, "READ-ONLY:\n- getSessions", 1
	index, err := d.Render()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1500 ms in total", "1000 bytes of code", "`bl` has 1 functions", "- getSessions"} {
		if !strings.Contains(index, want) {
			t.Errorf("index description lacks %q", want)
		}
	}
	if Tokens("12345") != 2 {
		t.Errorf("Tokens(5 characters) = %d, want 2", Tokens("12345"))
	}
}
