package functions_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/examples/brakinglab/functions"
	"github.com/brakinglab/codemode-go/sandbox"
)

// TestDescriptionStatesSharedRulesOnce checks that the full execute_code
// description fits 20,000 characters while declaring everything a model
// needs: every function with its description, every type, every field
// with its documentation (walked from the catalog, not listed here), the
// tier rules, the dry-run overload and the scopes said once, and the
// functions that wait for the user's approval tagged.
func TestDescriptionStatesSharedRulesOnce(t *testing.T) {
	cm, err := codemode.New(cat, &codemode.Options{Discovery: codemode.DiscoveryFull, Principal: &catalog.Principal{Subject: "tester"}, Example: functions.Example, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}})
	if err != nil {
		t.Fatal(err)
	}
	defer cm.Close()
	d := cm.ToolDescription()
	t.Logf("full description: %d characters", len(d))
	// 36,037 characters before the shared rules were stated once, 25,226
	// before the declarations were rendered without repetition.
	if len(d) > 20000 {
		t.Errorf("description is %d characters, want at most 20,000", len(d))
	}
	lines := strings.Split(d, "\n")
	types := map[reflect.Type]bool{}
	for _, f := range cat.Functions() {
		sig := -1
		for i, l := range lines {
			if strings.HasPrefix(l, "function "+f.Name+"(args") || strings.HasPrefix(l, "const "+f.Name+": Write") {
				sig = i
			}
		}
		if sig < 1 {
			t.Errorf("the description does not declare %s", f.Name)
			continue
		}
		doc := lines[sig-1]
		for _, l := range strings.Split(strings.TrimSpace(f.Description), "\n") {
			if !strings.Contains(doc, strings.TrimSpace(l)) {
				t.Errorf("%s: its JSDoc %q lacks %q", f.Name, doc, l)
			}
		}
		if got, want := strings.Contains(doc, "@approval"), f.Approval == catalog.ApprovalRequired; got != want {
			t.Errorf("%s: tagged @approval = %v, want %v", f.Name, got, want)
		}
		walkFields(t, f.In, d, types, true)
		walkFields(t, f.Out, d, types, false)
	}
	for typ := range types {
		if !strings.Contains(d, "interface "+typ.Name()+" ") {
			t.Errorf("the description does not declare type %s", typ.Name())
		}
	}
	if len(types) < 20 {
		t.Errorf("walked %d types; the walk is broken", len(types))
	}
	for _, s := range []string{"unknown argument fields are rejected", "With `_validateOnly: true`", "the call asks the user first", "scope brakinglab:read"} {
		if n := strings.Count(d, s); n != 1 {
			t.Errorf("%q appears %d times, want once", s, n)
		}
	}
	// One header per tier group; MUTATING and CREATIVE share the scope.
	if n := strings.Count(d, "scope brakinglab:write"); n != 2 {
		t.Errorf("%q appears %d times, want once per group", "scope brakinglab:write", n)
	}
}

// walkFields checks that every JSON member reachable from t is declared in
// d with its documentation, and collects the named structs a declaration
// names (top is the argument or result type itself; embedded structs are
// flattened, as in JSON).
func walkFields(t *testing.T, typ reflect.Type, d string, types map[reflect.Type]bool, top bool) {
	t.Helper()
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct || typ == reflect.TypeFor[time.Time]() {
		return
	}
	if !top && typ.Name() != "" {
		if types[typ] {
			return
		}
		types[typ] = true
	}
	for i := 0; i < typ.NumField(); i++ {
		sf := typ.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" || !sf.IsExported() {
			continue
		}
		if sf.Anonymous && name == "" {
			walkFields(t, sf.Type, d, types, true) // promoted members
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if !strings.Contains(d, name+": ") && !strings.Contains(d, name+"?: ") {
			t.Errorf("%s.%s: member %q is not declared", typ.Name(), sf.Name, name)
		}
		if doc := sf.Tag.Get("jsonschema"); doc != "" && !strings.Contains(d, doc) {
			t.Errorf("%s.%s: documentation %q is missing", typ.Name(), sf.Name, doc)
		}
		walkFields(t, sf.Type, d, types, false)
	}
}

// TestDiscoveryFigures checks the auto-mode description of BrakingLab
// (at most 8,000 characters, every function listed), one function's describe
// answer (at most 600 tokens on average) and search quality on the
// committed BrakingLab tasks (top-3 at least 90%), all from one execution.
func TestDiscoveryFigures(t *testing.T) {
	cm, err := codemode.New(cat, &codemode.Options{Principal: &catalog.Principal{Subject: "tester"}, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}})
	if err != nil {
		t.Fatal(err)
	}
	defer cm.Close()
	d := cm.ToolDescription()
	tokens := (len(d) + 3) / 4
	t.Logf("auto description: %d characters, %d tokens", len(d), tokens)
	if len(d) > 8000 {
		t.Errorf("auto description is %d characters (%d tokens), want at most 8,000 characters", len(d), tokens)
	}
	var names, approval []string
	for _, f := range cat.Functions() {
		names = append(names, f.Name)
		required := f.Approval == catalog.ApprovalRequired
		if required {
			approval = append(approval, f.Name)
		}
		i := strings.Index(d, "\n- "+f.Name+": ")
		if i < 0 {
			t.Errorf("the auto description lost %s", f.Name)
			continue
		}
		line, _, _ := strings.Cut(d[i+1:], "\n")
		if got := strings.HasSuffix(line, " @approval"); got != required {
			t.Errorf("index line %q: tagged @approval = %v, want %v", line, got, required)
		}
	}
	raw, err := os.ReadFile("testdata/search_tasks.json")
	if err != nil {
		t.Fatal(err)
	}
	var tasks []struct{ Task, Want string }
	if err := json.Unmarshal(raw, &tasks); err != nil {
		t.Fatal(err)
	}
	namesJSON, _ := json.Marshal(names)
	srv := httptest.NewServer(cm.Handler())
	defer srv.Close()
	c := mcp.NewClient(&mcp.Implementation{Name: "figures", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `
const names = ` + string(namesJSON) + `;
let total = 0;
const approval = [];
for (const n of names) {
  const d = await codemode.describe([n]);
  total += d.length;
  if (d.includes("@approval")) approval.push(n);
}
const tasks = ` + string(raw) + `;
const top = [];
for (const t of tasks) top.push((await codemode.search(t.task, { limit: 3 })).map((h) => h.name));
return { avg: total / names.length, top, approval };`}})
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	var out struct {
		Result struct {
			Avg      float64
			Top      [][]string
			Approval []string
		}
	}
	if err := json.Unmarshal(sc, &out); err != nil || res.IsError || len(out.Result.Top) != len(tasks) {
		t.Fatalf("execution failed: %s", sc)
	}
	t.Logf("describe of one function: %.0f tokens on average", out.Result.Avg/4)
	if strings.Join(out.Result.Approval, ",") != strings.Join(approval, ",") || len(approval) == 0 {
		t.Errorf("describe tags %v @approval, want %v", out.Result.Approval, approval)
	}
	if out.Result.Avg/4 > 600 {
		t.Errorf("describe averages %.0f tokens, want at most 600", out.Result.Avg/4)
	}
	top1, top3 := 0, 0
	for i, tk := range tasks {
		for j, n := range out.Result.Top[i] {
			if n == tk.Want {
				top3++
				if j == 0 {
					top1++
				}
			}
		}
		if len(out.Result.Top[i]) == 0 || out.Result.Top[i][0] != tk.Want {
			t.Logf("%q: want %s, got %v", tk.Task, tk.Want, out.Result.Top[i])
		}
	}
	t.Logf("BrakingLab tasks: top-1 %d/%d, top-3 %d/%d", top1, len(tasks), top3, len(tasks))
	if top3*10 < len(tasks)*9 {
		t.Errorf("top-3 %d/%d is under 90%%", top3, len(tasks))
	}
}
