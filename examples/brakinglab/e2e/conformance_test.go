package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/internal/tsclienttest"
)

// requiredScenarios must pass: they are never allowed in the baseline.
var requiredScenarios = []string{
	"server-initialize", "ping", "tools-list", "dns-rebinding-protection",
	"resources-list", "resources-read-text",
}

// baselineScenarios reads the server scenario names of the expected-failures
// YAML file (a flat "server:" list of "- name" items).
func baselineScenarios(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	inServer := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
		case !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-"):
			inServer = trimmed == "server:"
		case inServer && strings.HasPrefix(trimmed, "- "):
			names = append(names, strings.TrimSpace(strings.TrimPrefix(trimmed, "- ")))
		}
	}
	return names
}

// TestConformance runs the official MCP conformance suite's server
// scenarios against BrakingLab in its loopback-only no-auth mode (the suite
// cannot sign in). Scenarios that need the suite's own test tools, prompts
// or resources are listed with reasons in testdata/conformance-baseline.yml;
// the suite fails on any other failure and on a baseline entry that passes.
func TestConformance(t *testing.T) {
	tsclienttest.Need(t, "@modelcontextprotocol/conformance")
	cli := filepath.Join(tsclienttest.Modules(), "@modelcontextprotocol", "conformance", "dist", "index.js")

	baseline, err := filepath.Abs(filepath.Join("testdata", "conformance-baseline.yml"))
	if err != nil {
		t.Fatal(err)
	}
	listed := baselineScenarios(t, baseline)
	for _, name := range requiredScenarios {
		for _, b := range listed {
			if b == name {
				t.Errorf("required scenario %s is in the expected-failures baseline", name)
			}
		}
	}

	s := startServer(t, "-insecure-no-auth", "-conformance-fixtures")
	results := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tsclienttest.Node(), cli, "server", "--url", s.MCPURL,
		"--expected-failures", baseline, "--output-dir", results)
	cmd.Dir = t.TempDir()
	cmd.Env = append(cleanEnv(), "PATH="+filepath.Dir(tsclienttest.Node())+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	passed := scenarioOutcomes(t, results)
	t.Logf("conformance scenarios: %v", passed)
	if err != nil {
		t.Fatalf("conformance suite: %v\n%s", err, out)
	}
	for _, name := range requiredScenarios {
		if ok, ran := passed[name]; !ran || !ok {
			t.Errorf("scenario %s: ran=%v passed=%v, want a pass", name, ran, ok)
		}
	}
}

var timestampRE = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T[-\dZ]+$`)

// scenarioOutcomes reads the suite's per-scenario checks.json files and
// reports whether every check of each scenario succeeded.
func scenarioOutcomes(t *testing.T, dir string) map[string]bool {
	t.Helper()
	outcomes := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var checks []struct {
			Status string `json:"status"`
		}
		if err := json.Unmarshal(raw, &checks); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name := filepath.Base(filepath.Dir(f)) // server-<scenario>-<timestamp>
		name = timestampRE.ReplaceAllString(strings.TrimPrefix(name, "server-"), "")
		ok := len(checks) > 0
		for _, c := range checks {
			if c.Status != "SUCCESS" && c.Status != "INFO" && c.Status != "WARNING" {
				ok = false
			}
		}
		outcomes[name] = ok
	}
	return outcomes
}
