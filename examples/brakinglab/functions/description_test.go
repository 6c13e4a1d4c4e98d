package functions_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

// TestDescriptionStatesSharedRulesOnce checks that the full execute_code
// description declares every function while saying the tier rules, the
// dry-run overload and the scopes once, not once per function.
func TestDescriptionStatesSharedRulesOnce(t *testing.T) {
	cm, err := codemode.New(cat, &codemode.Options{SandboxMode: sandbox.ModeInProcess, Discovery: codemode.DiscoveryFull, Principal: &catalog.Principal{Subject: "tester"}})
	if err != nil {
		t.Fatal(err)
	}
	defer cm.Close()
	d := cm.ToolDescription()
	t.Logf("full description: %d characters", len(d))
	for _, f := range cat.Functions() {
		if !strings.Contains(d, " "+f.Name+"(args") && !strings.Contains(d, "const "+f.Name+": Write") {
			t.Errorf("the description does not declare %s", f.Name)
		}
	}
	for _, s := range []string{"unknown argument fields are rejected", "require scope brakinglab:write"} {
		if n := strings.Count(d, s); n != 1 {
			t.Errorf("%q appears %d times, want once", s, n)
		}
	}
	// 36,037 characters before the shared rules were stated once.
	if len(d) > 26000 {
		t.Errorf("description is %d characters, want at most 26,000", len(d))
	}
}

// TestDiscoveryFigures checks the auto-mode description of BrakingLab
// (at most 4,000 tokens, every function listed), one function's describe
// answer (at most 600 tokens on average) and search quality on the
// committed BrakingLab tasks (top-3 at least 90%), all from one execution.
func TestDiscoveryFigures(t *testing.T) {
	cm, err := codemode.New(cat, &codemode.Options{SandboxMode: sandbox.ModeInProcess, Principal: &catalog.Principal{Subject: "tester"}})
	if err != nil {
		t.Fatal(err)
	}
	defer cm.Close()
	d := cm.ToolDescription()
	tokens := (len(d) + 3) / 4
	t.Logf("auto description: %d characters, %d tokens", len(d), tokens)
	if tokens > 4000 {
		t.Errorf("auto description is %d tokens, want at most 4,000", tokens)
	}
	var names []string
	for _, f := range cat.Functions() {
		names = append(names, f.Name)
		if !strings.Contains(d, "- "+f.Name+": ") {
			t.Errorf("the auto description lost %s", f.Name)
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
for (const n of names) total += (await codemode.describe([n])).length;
const tasks = ` + string(raw) + `;
const top = [];
for (const t of tasks) top.push((await codemode.search(t.task, { limit: 3 })).map((h) => h.name));
return { avg: total / names.length, top };`}})
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	var out struct {
		Result struct {
			Avg float64
			Top [][]string
		}
	}
	if err := json.Unmarshal(sc, &out); err != nil || res.IsError || len(out.Result.Top) != len(tasks) {
		t.Fatalf("execution failed: %s", sc)
	}
	t.Logf("describe of one function: %.0f tokens on average", out.Result.Avg/4)
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
