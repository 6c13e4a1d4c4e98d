package savedlist

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/saved"
)

// Retarget writes exactly saved.name(JSON.parse(args)), and refuses any
// name that is not a plain identifier, so no tool name reaches the code.
func TestRetarget(t *testing.T) {
	for _, tt := range []struct {
		name, args, code string
	}{
		{"saved_weeklyReview", `{"status":"x"}`, `return await saved.weeklyReview(JSON.parse("{\"status\":\"x\"}"));`},
		{"saved_a", ``, `return await saved.a(JSON.parse("{}"));`},
		{"saved_a", `null`, `return await saved.a(JSON.parse("{}"));`},
		{"saved_a", `{"__proto__":{"x":1},"s":"</script>\u2028"}`, `return await saved.a(JSON.parse("{\"__proto__\":{\"x\":1},\"s\":\"\u003c/script\u003e\\u2028\"}"));`},
		{"saved_a);evil(", `{}`, ""},
		{"saved_", `{}`, ""},
		{"saved_1a", `{}`, ""},
		{"saved_a$", `{}`, ""},
		{"execute_code", `{}`, ""},
	} {
		tool, args, ok := Retarget(tt.name, json.RawMessage(tt.args), "execute_code")
		if !ok {
			if tt.code != "" {
				t.Errorf("%s: refused", tt.name)
			}
			continue
		}
		var got struct{ Code string }
		if err := json.Unmarshal(args, &got); err != nil || tool != "execute_code" || got.Code != tt.code {
			t.Errorf("%s %s: %s %s, want %s", tt.name, tt.args, tool, got.Code, tt.code)
		}
	}
}

// The index names at most maxIndexEntries functions in at most
// maxIndexBytes, says how many more there are, and shows the read-only
// tool only READ-ONLY ones; tools leave out names that are not plain.
func TestIndexAndToolsAreBounded(t *testing.T) {
	lib := saved.New(&saved.Options{Limits: saved.Limits{MaxPerOwner: 200}, Tools: true})
	ctx := context.Background()
	env := saved.NewEnv("ann", map[string]catalog.Tier{"lab.del": catalog.Mutating}, false)
	save := func(name, code string) {
		t.Helper()
		d := saved.Draft{Name: name, Description: strings.Repeat("Long words. ", 30), Code: code, Input: json.RawMessage(`{"type":"object"}`)}
		if _, err := lib.Save(ctx, env, d); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 60 {
		save(fmt.Sprintf("f%02d", i), "return 1")
	}
	save("$odd", "return 1")
	save("del", "return await lab.del({})")
	list := func(owner string) []*saved.Function {
		fns, err := lib.List(ctx, owner)
		if err != nil {
			t.Fatal(err)
		}
		return fns
	}
	text := Index(list("ann"), false)
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(text) > maxIndexBytes+300 || len(lines) > maxIndexEntries+2 || !strings.Contains(lines[len(lines)-1], "more: codemode.saved() lists them all") {
		t.Errorf("%d bytes, %d lines, ending %q", len(text), len(lines), lines[len(lines)-1])
	}
	ro := Index(list("ann"), true)
	if strings.Contains(ro, "saved.del ") {
		t.Errorf("the read-only index names a MUTATING function")
	}
	if none := Index(list("bob"), false); none != "" {
		t.Errorf("bob's index: %q", none)
	}
	tools := Tools(list("ann"), "execute_code")
	if len(tools) != 61 {
		t.Errorf("%d tools, want 61 (not $odd)", len(tools))
	}
	for _, tl := range tools {
		if tl.Name == "saved_del" && (tl.Annotations.ReadOnlyHint || !*tl.Annotations.DestructiveHint) {
			t.Errorf("saved_del hints %+v", tl.Annotations)
		}
	}
}
