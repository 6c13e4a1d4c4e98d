package codemode_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/testdata/ghcatalog"
	"github.com/brakinglab/codemode-go/sandbox"
)

// searchTask is one natural-language task and the function a developer
// would pick for it.
type searchTask struct {
	Task string `json:"task"`
	Want string `json:"want"`
}

// githubServer serves the generated GitHub catalog over HTTP.
func githubServer(t *testing.T, configure func(*codemode.Options)) *testServer {
	t.Helper()
	cat, err := ghcatalog.New()
	if err != nil {
		t.Fatal(err)
	}
	return startServerFor(t, cat, func(o *codemode.Options) {
		o.Sandbox.Mode = sandbox.ModeInProcess
		if configure != nil {
			configure(o)
		}
	})
}

// execute runs code on execute_code, as a client of ts with no scopes,
// and returns the value it returned.
func execute(t *testing.T, ts *testServer, code string) json.RawMessage {
	t.Helper()
	res := run(t, ts.connect(t, ts.token("tester"), nil), code)
	if res.IsError {
		t.Fatalf("execution failed: %s", text(res))
	}
	return structuredOf(t, res).Result
}

// TestSearchQuality ranks the committed GitHub tasks from inside one
// execution and requires the expected function in the top 3 for at least
// 90% of them. The BrakingLab half of the task set is in
// examples/brakinglab/functions.
func TestSearchQuality(t *testing.T) {
	raw, err := os.ReadFile("testdata/search_tasks_github.json")
	if err != nil {
		t.Fatal(err)
	}
	var tasks []searchTask
	if err := json.Unmarshal(raw, &tasks); err != nil {
		t.Fatal(err)
	}
	s := githubServer(t, nil)
	queries, _ := json.Marshal(tasks)
	out := execute(t, s, `const tasks = `+string(queries)+`;
const top = [];
for (const t of tasks) top.push((await codemode.search(t.task, { limit: 3 })).map((h) => h.name));
return top;`)
	var top [][]string
	if err := json.Unmarshal(out, &top); err != nil {
		t.Fatal(err)
	}
	top1, top3 := 0, 0
	for i, tk := range tasks {
		for j, n := range top[i] {
			if n == tk.Want {
				top3++
				if j == 0 {
					top1++
				}
			}
		}
		if len(top[i]) == 0 || top[i][0] != tk.Want {
			t.Logf("%q: want %s, got %v", tk.Task, tk.Want, top[i])
		}
	}
	t.Logf("GitHub tasks: top-1 %d/%d, top-3 %d/%d", top1, len(tasks), top3, len(tasks))
	if top3*10 < len(tasks)*9 {
		t.Errorf("top-3 %d/%d is under 90%%", top3, len(tasks))
	}
}

// TestLargeCatalogFigures checks the token figures of the 300-operation
// catalog: the index description within 6,000 tokens and auto choosing it,
// and one function's declarations within 600 tokens on average.
func TestLargeCatalogFigures(t *testing.T) {
	auto := githubServer(t, nil)
	index := githubServer(t, func(o *codemode.Options) { o.Discovery = codemode.DiscoveryIndex })
	full := githubServer(t, func(o *codemode.Options) { o.Discovery = codemode.DiscoveryFull })
	tok := func(s string) int { return (len(s) + 3) / 4 }
	t.Logf("GitHub (%d functions): full %d tokens, index %d tokens", ghcatalog.Operations, tok(full.ToolDescription()), tok(index.ToolDescription()))
	if auto.ToolDescription() != index.ToolDescription() {
		t.Error("auto mode did not choose the index for the large catalog")
	}
	if n := tok(index.ToolDescription()); n > 6000 {
		t.Errorf("index description is %d tokens, want at most 6,000", n)
	}
	cat, _ := ghcatalog.New()
	var names []string
	for _, f := range cat.Functions() {
		names = append(names, f.Name)
	}
	// One execution per MaxDiscoveryCalls names: each may make that many
	// discovery calls.
	var got struct{ Avg, Max float64 }
	total := 0.0
	for len(names) > 0 {
		chunk := names[:min(len(names), codemode.MaxDiscoveryCalls)]
		names = names[len(chunk):]
		namesJSON, _ := json.Marshal(chunk)
		out := execute(t, index, `const names = `+string(namesJSON)+`;
let total = 0, max = 0;
for (const n of names) { const d = await codemode.describe([n]); total += d.length; if (d.length > max) max = d.length; }
return { total, max };`)
		var part struct{ Total, Max float64 }
		if err := json.Unmarshal(out, &part); err != nil {
			t.Fatal(err)
		}
		total += part.Total
		got.Max = max(got.Max, part.Max)
	}
	got.Avg = total / float64(len(cat.Functions()))
	t.Logf("GitHub describe of one function: %.0f tokens on average, %.0f at most", got.Avg/4, got.Max/4)
	if !strings.Contains(index.ToolDescription(), "- issuesCreate: Create an issue.") {
		t.Errorf("the index lacks issuesCreate's line")
	}
}
