package functions_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode/codemodetest"
	"github.com/brakinglab/codemode-go/examples/brakinglab/functions"
)

// TestScriptsRunInSandbox runs the seed coaching script, unmodified, and the
// README's example scripts through execute_code (sandbox workers, as in
// production) against the seeded store as the demo user, who approves
// every change.
func TestScriptsRunInSandbox(t *testing.T) {
	h := codemodetest.New(t, cat, &codemodetest.Options{
		Principal: &catalog.Principal{Subject: demoU.ID, ClientID: "test", Scopes: []string{functions.ScopeRead, functions.ScopeWrite}},
		Approve:   codemodetest.Accept,
	})
	scripts, _ := filepath.Glob("testdata/prompts/*.ts")
	scripts = append(scripts, "../testdata/coaching.ts")
	for _, path := range scripts {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			res := h.Run(t, string(src))
			if res.Err != nil {
				t.Fatalf("%v\n%s", res.Err, res.Text)
			}
			if len(res.Value) < 10 || string(res.Value) == "null" {
				t.Fatalf("value %s", res.Value)
			}
			t.Logf("%d calls, value %.300s", len(res.Calls), res.Value)
			if filepath.Base(path) == "coaching.ts" {
				v := codemodetest.Value[struct {
					ReportID string `json:"reportId"`
					Corners  int    `json:"corners"`
				}](t, res)
				var reports []struct{ ID string }
				mustCall(t, demoU, "getCoachingReports", obj{"limit": 50}, &reports)
				found := false
				for _, r := range reports {
					found = found || r.ID == v.ReportID
				}
				if v.Corners != 5 || !found {
					t.Fatalf("value %s; report not listed by getCoachingReports", res.Value)
				}
			}
		})
	}
}
